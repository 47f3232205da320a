import { ConvertRequestError } from '../upstream-errors';

export interface DataUrl {
  mimeType: string;
  /** base64 */
  data: string;
}

/** `data:image/png;base64,AAAA` → mime type and base64 payload. Only base64 data URLs carry images. */
export function parseDataUrl(url: string): DataUrl {
  const comma = url.indexOf(',');
  const header = comma === -1 ? '' : url.slice(5, comma);
  if (!url.startsWith('data:') || !header.endsWith(';base64')) {
    throw new ConvertRequestError('image_url must be an http(s) URL or a base64 data URL');
  }
  const mimeType = header.slice(0, -';base64'.length) || 'application/octet-stream';
  return { mimeType, data: url.slice(comma + 1) };
}

export function isHttpUrl(url: string): boolean {
  return url.startsWith('https://') || url.startsWith('http://');
}
