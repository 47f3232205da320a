import { UpstreamLocalError } from '../upstream-errors';
import { isHttpUrl, parseDataUrl } from './parse-data-url';

describe('parseDataUrl', () => {
  it('splits the mime type and the base64 payload', () => {
    expect(parseDataUrl('data:image/png;base64,iVBORw0KGgo=')).toEqual({ mimeType: 'image/png', data: 'iVBORw0KGgo=' });
  });

  it('rejects anything but base64 data URLs with a local 400', () => {
    for (const url of ['data:image/png,raw', 'ftp://x/y.png', 'not a url']) {
      expect(() => parseDataUrl(url)).toThrow(UpstreamLocalError);
    }
    expect(() => parseDataUrl('data:,x')).toThrow(expect.objectContaining({ status: 400, code: 'convert_request_failed' }));
    expect(isHttpUrl('https://a/b.png')).toBe(true);
    expect(isHttpUrl('data:image/png;base64,AA')).toBe(false);
  });
});
