import { createHash, createHmac } from 'node:crypto';

export const TENCENT_SERVICE = 'hunyuan';
export const TENCENT_ACTION = 'ChatCompletions';
export const TENCENT_VERSION = '2023-09-01';

export interface TencentCredentials {
  readonly appId: string;
  readonly secretId: string;
  readonly secretKey: string;
}

/** The channel key `AppId|SecretId|SecretKey` (AppId is not used by the API, as in new-api), or null when malformed. */
export function parseTencentKey(key: string): TencentCredentials | null {
  const parts = key.split('|');
  if (parts.length !== 3 || parts.some((part) => part.trim() === '')) return null;
  return { appId: parts[0].trim(), secretId: parts[1].trim(), secretKey: parts[2].trim() };
}

function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

function hmac(key: string | Buffer, value: string): Buffer {
  return createHmac('sha256', key).update(value, 'utf8').digest();
}

/** The UTC date (YYYY-MM-DD) of a Unix timestamp, as the credential scope names it. */
export function tencentDate(timestampSeconds: number): string {
  return new Date(timestampSeconds * 1000).toISOString().slice(0, 10);
}

/**
 * TC3-HMAC-SHA256 (https://www.tencentcloud.com/document/api/1030/31647): the canonical request over POST /, the
 * signed headers content-type, host and x-tc-action, and the body's SHA-256; the key chain is
 * HMAC("TC3"+SecretKey, date) → service → "tc3_request". Returns the Authorization header value.
 */
export function tencentAuthorization(options: {
  secretId: string;
  secretKey: string;
  host: string;
  contentType: string;
  action: string;
  body: string;
  timestampSeconds: number;
  service?: string;
}): string {
  const service = options.service ?? TENCENT_SERVICE;
  const date = tencentDate(options.timestampSeconds);
  const signedHeaders = 'content-type;host;x-tc-action';
  const canonicalHeaders = `content-type:${options.contentType}\nhost:${options.host}\nx-tc-action:${options.action.toLowerCase()}\n`;
  const canonicalRequest = ['POST', '/', '', canonicalHeaders, signedHeaders, sha256Hex(options.body)].join('\n');
  const scope = `${date}/${service}/tc3_request`;
  const stringToSign = ['TC3-HMAC-SHA256', String(options.timestampSeconds), scope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(`TC3${options.secretKey}`, date), service), 'tc3_request');
  const signature = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
  return `TC3-HMAC-SHA256 Credential=${options.secretId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
}
