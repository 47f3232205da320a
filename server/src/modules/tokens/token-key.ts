import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const TOKEN_KEY_LENGTH = 48;
const KEY_PATTERN = /^[0-9a-zA-Z]{1,48}$/;

/**
 * A new token key: 48 characters of [0-9a-zA-Z] from the OS CSPRNG, as new-api's keys. Bytes ≥ 248 are
 * rejected so that every character is equally likely (256 is not a multiple of 62).
 */
export function generateTokenKey(): string {
  let key = '';
  while (key.length < TOKEN_KEY_LENGTH) {
    for (const byte of randomBytes(64)) {
      if (byte >= 248) continue;
      key += ALPHABET[byte % 62];
      if (key.length === TOKEN_KEY_LENGTH) break;
    }
  }
  return key;
}

/** `sk-abc***xyz`: the first and last three characters, as the relay's exhausted messages show a key. */
export function maskTokenKey(key: string): string {
  return `sk-${key.slice(0, 3)}***${key.slice(-3)}`;
}

/** Could `key` be a stored key at all? Anything else is answered "无效的令牌" without a lookup. */
export function isWellFormedTokenKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export interface RelayKeyHeaders {
  authorization?: string | null;
  /** Midjourney clients may send the key here instead (`mj-api-secret`). */
  mjApiSecret?: string | null;
}

export interface RelayKey {
  /** The token key without `sk-`; '' when none was given. */
  key: string;
  /** The `-<channelId>` suffix of `sk-KEY-ID` exactly as sent (validated later by distribution); undefined if none. */
  channelPart?: string;
}

function stripBearer(value: string): string {
  return value.startsWith('Bearer ') ? value.slice('Bearer '.length) : value;
}

/**
 * Reads the key as new-api's TokenAuth does: `Authorization` without one leading
 * `Bearer `; if that is empty or `midjourney-proxy`, the `mj-api-secret` header instead; then `sk-` is removed
 * and the rest split on `-`: the first part is the key, the second (if any) a channel id to force.
 */
export function readRelayKey(headers: RelayKeyHeaders): RelayKey {
  let value = stripBearer((headers.authorization ?? '').trim()).trim();
  if (value === '' || value === 'midjourney-proxy') value = stripBearer((headers.mjApiSecret ?? '').trim()).trim();
  if (value.startsWith('sk-')) value = value.slice(3);
  const parts = value.split('-');
  return parts.length > 1 ? { key: parts[0], channelPart: parts[1] } : { key: parts[0] };
}
