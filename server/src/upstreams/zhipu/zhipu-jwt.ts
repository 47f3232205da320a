import { createHmac } from 'node:crypto';
import { UpstreamLocalError } from '../upstream-errors';

/** Zhipu's tokens live 24 hours; a cached one is reused until 5 minutes before that. */
const LIFETIME_MS = 24 * 3600 * 1000;
const REFRESH_MARGIN_MS = 5 * 60 * 1000;

function base64url(value: string | Buffer): string {
  return Buffer.from(value).toString('base64url');
}

/**
 * Zhipu's API token (https://open.bigmodel.cn/dev/api#nosdk): an HS256 JWT signed with the secret half of the
 * `id.secret` key, header `{"alg":"HS256","sign_type":"SIGN"}`, claims `api_key` = id and `exp` / `timestamp` in
 * milliseconds (Zhipu's own convention, not the JWT standard's seconds).
 */
export function signZhipuToken(key: string, nowMs: number): string {
  const dot = key.indexOf('.');
  if (dot <= 0 || dot === key.length - 1 || key.indexOf('.', dot + 1) !== -1) {
    throw new UpstreamLocalError('invalid zhipu key: the channel key must be "id.secret"', 'invalid_channel_key', 500);
  }
  const id = key.slice(0, dot);
  const secret = key.slice(dot + 1);
  const header = base64url(JSON.stringify({ alg: 'HS256', sign_type: 'SIGN' }));
  const payload = base64url(JSON.stringify({ api_key: id, exp: nowMs + LIFETIME_MS, timestamp: nowMs }));
  const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}

/** Tokens cached per key, as new-api caches them; one cache per adapter (so per registry). */
export class ZhipuTokenCache {
  private readonly tokens = new Map<string, { token: string; expiresAt: number }>();

  constructor(private readonly now: () => number) {}

  token(key: string): string {
    const nowMs = this.now();
    const cached = this.tokens.get(key);
    if (cached && nowMs < cached.expiresAt - REFRESH_MARGIN_MS) return cached.token;
    const token = signZhipuToken(key, nowMs);
    // Keys of deleted channels would otherwise stay forever; a gateway has few live keys.
    if (this.tokens.size > 1000) this.tokens.clear();
    this.tokens.set(key, { token, expiresAt: nowMs + LIFETIME_MS });
    return token;
  }
}
