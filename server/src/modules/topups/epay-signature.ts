import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The Epay ("易支付") signature as go-epay v0.0.2 computes it: drop `sign`, `sign_type` and every empty value, sort
 * the keys ascending (byte order), join as `k1=v1&k2=v2…`, append the merchant key with no separator, MD5,
 * lowercase hex. Values are the decoded ones (what the form posts, what the callback's query decodes to).
 */
export function epaySign(params: Readonly<Record<string, string>>, key: string): string {
  const keys = Object.keys(params)
    .filter((name) => name !== 'sign' && name !== 'sign_type' && params[name] !== '')
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const text = keys.map((name) => `${name}=${params[name]}`).join('&');
  return createHash('md5')
    .update(text + key, 'utf8')
    .digest('hex');
}

/** True when `params.sign` is the signature of `params` under `key` (compared in constant time). */
export function epayVerify(params: Readonly<Record<string, string>>, key: string): boolean {
  const given = Buffer.from(params.sign ?? '', 'utf8');
  const expected = Buffer.from(epaySign(params, key), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
