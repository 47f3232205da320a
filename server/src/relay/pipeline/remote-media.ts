import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import type { InlineMedia, JsonObject } from '../../upstreams/upstream-adapter';
import type { RelaySignal } from '../http/client-gone-signal';
import { RelayError } from '../relay-error';

/** As in new-api: at most 16 images per message go to Gemini; later image parts of a message are dropped. */
export const MAX_IMAGES_PER_MESSAGE = 16;
export const MEDIA_FETCH_TIMEOUT_MS = 10_000;
export const MEDIA_MAX_BYTES = 20 * 1024 * 1024;

export interface RemoteMediaOptions {
  timeoutMs?: number;
  maxBytes?: number;
  signal?: RelaySignal;
  /**
   * Fetch from loopback, private, link-local and other internal addresses too. Off by default: a client must not
   * make the gateway read its own network (SSRF) and hand the bytes to a model. RELAY_MEDIA_ALLOW_PRIVATE=true.
   */
  allowPrivate?: boolean;
}

/** Addresses a client-supplied URL may not reach unless allowPrivate is set. */
const INTERNAL = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  INTERNAL.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  INTERNAL.addSubnet(network, prefix, 'ipv6');

export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return INTERNAL.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    return mapped ? INTERNAL.check(mapped[1], 'ipv4') : INTERNAL.check(address, 'ipv6');
  }
  return true;
}

/** DNS resolution that refuses internal addresses, so a public name that resolves inward is refused too. */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 4);
    const list = addresses as Array<{ address: string; family: number }>;
    const allowed = list.filter((entry) => !isInternalAddress(entry.address));
    if (allowed.length === 0) return callback(new Error(`${hostname} resolves to an internal address`), '', 4);
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof allowed) => void)(null, allowed);
    callback(null, allowed[0].address, allowed[0].family);
  });
};

const publicOnlyAgent = new Agent({ connect: { lookup: publicOnlyLookup } });

function fetchFailed(message: string): RelayError {
  return new RelayError(400, message, 'new_api_error', { shape: 'relay', code: 'fetch_image_failed' });
}

function isHttpUrl(url: string): boolean {
  return url.startsWith('https://') || url.startsWith('http://');
}

function imageUrlOfPart(part: unknown): string | null {
  if (typeof part !== 'object' || part === null || (part as JsonObject).type !== 'image_url') return null;
  const imageUrl = (part as JsonObject).image_url;
  if (typeof imageUrl === 'string') return imageUrl;
  if (typeof imageUrl === 'object' && imageUrl !== null && typeof (imageUrl as JsonObject).url === 'string')
    return (imageUrl as JsonObject).url as string;
  return '';
}

/**
 * The body with at most `MAX_IMAGES_PER_MESSAGE` image parts per message (later ones dropped, as new-api
 * does for Gemini). The same object when nothing had to go; the client's body is never mutated.
 */
export function limitImagesPerMessage(body: JsonObject): JsonObject {
  const messages = body.messages;
  if (!Array.isArray(messages)) return body;
  let changed = false;
  const limited = messages.map((message) => {
    if (typeof message !== 'object' || message === null || !Array.isArray((message as JsonObject).content)) return message;
    const content = (message as JsonObject).content as unknown[];
    let images = 0;
    const kept = content.filter((part) => imageUrlOfPart(part) === null || ++images <= MAX_IMAGES_PER_MESSAGE);
    if (kept.length === content.length) return message;
    changed = true;
    return { ...(message as JsonObject), content: kept };
  });
  return changed ? ({ ...body, messages: limited } as JsonObject) : body;
}

/** The distinct http(s) image URLs of the body's messages (data: URLs are already inline). */
export function remoteImageUrls(body: JsonObject): string[] {
  const urls = new Set<string>();
  const messages = body.messages;
  if (!Array.isArray(messages)) return [];
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    const content = (message as JsonObject).content;
    if (!Array.isArray(content)) continue;
    for (const part of content) {
      const url = imageUrlOfPart(part);
      if (url && isHttpUrl(url)) urls.add(url);
    }
  }
  return [...urls];
}

function sniffMimeType(bytes: Buffer): string | null {
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 6 && (bytes.subarray(0, 6).toString('latin1') === 'GIF87a' || bytes.subarray(0, 6).toString('latin1') === 'GIF89a'))
    return 'image/gif';
  if (bytes.length >= 12 && bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP')
    return 'image/webp';
  return null;
}

async function fetchOne(
  url: string,
  timeoutMs: number,
  maxBytes: number,
  signal: AbortSignal,
  allowPrivate: boolean,
): Promise<InlineMedia> {
  if (!allowPrivate) {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && isInternalAddress(host)) throw fetchFailed(`failed to fetch image ${url}: internal addresses are not fetched`);
  }
  let answer;
  try {
    answer = await request(url, {
      method: 'GET',
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal,
      ...(allowPrivate ? {} : { dispatcher: publicOnlyAgent }),
    });
  } catch (error) {
    throw fetchFailed(`failed to fetch image ${url}: ${signal.aborted ? 'timed out' : ((error as Error)?.message ?? String(error))}`);
  }
  try {
    if (answer.statusCode < 200 || answer.statusCode >= 300) throw fetchFailed(`failed to fetch image ${url}: HTTP ${answer.statusCode}`);
    const declared = Number(answer.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes)
      throw fetchFailed(`image ${url} is too large: ${declared} bytes, the limit is ${maxBytes}`);
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of answer.body) {
        size += (chunk as Buffer).length;
        if (size > maxBytes) throw fetchFailed(`image ${url} is too large: more than ${maxBytes} bytes, the limit is ${maxBytes}`);
        chunks.push(chunk as Buffer);
      }
    } catch (error) {
      if (error instanceof RelayError) throw error;
      throw fetchFailed(`failed to fetch image ${url}: ${signal.aborted ? 'timed out' : ((error as Error)?.message ?? String(error))}`);
    }
    const bytes = Buffer.concat(chunks, size);
    const header = answer.headers['content-type'];
    const contentType = (Array.isArray(header) ? header[0] : (header ?? '')).split(';')[0].trim().toLowerCase();
    const mimeType = contentType.startsWith('image/') ? contentType : sniffMimeType(bytes);
    if (!mimeType) throw fetchFailed(`failed to fetch image ${url}: the content type ${contentType || '(none)'} is not an image`);
    return { mimeType, data: bytes.toString('base64') };
  } finally {
    answer.body.destroy();
  }
}

/**
 * Fetches every remote image of the body in parallel (for adapters with `needsRemoteMedia`), keyed by URL.
 * Each fetch is bounded in time and size; the first failure cancels the others and becomes a 400 relay error.
 */
export async function fetchRemoteMedia(body: JsonObject, options: RemoteMediaOptions = {}): Promise<Map<string, InlineMedia>> {
  const urls = remoteImageUrls(body);
  const media = new Map<string, InlineMedia>();
  if (urls.length === 0) return media;
  const timeoutMs = options.timeoutMs ?? MEDIA_FETCH_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? MEDIA_MAX_BYTES;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const onClientGone = () => controller.abort();
  options.signal?.addEventListener('abort', onClientGone, { once: true });
  try {
    const fetched = await Promise.all(
      urls.map((url) =>
        fetchOne(url, timeoutMs, maxBytes, controller.signal, options.allowPrivate === true).catch((error: unknown) => {
          controller.abort();
          throw error;
        }),
      ),
    );
    urls.forEach((url, index) => media.set(url, fetched[index]));
    return media;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onClientGone);
  }
}
