import { parseJsonObject } from '../shared/map-upstream-error';
import { splitBaseUrl, upstreamTarget } from '../shared/upstream-url';
import type { UpstreamCall, UpstreamFailure } from '../upstream-adapter';
import { UpstreamCallFailure, UpstreamLocalError } from '../upstream-errors';

/** A cached token is refreshed in the background once it is this close to expiry (as new-api). */
const REFRESH_WITHIN_MS = 3600 * 1000;
/** new-api's timeout for the exchange; the exchange's own, never the triggering client's (it is shared). */
export const BAIDU_TOKEN_TIMEOUT_MS = 5_000;

interface CachedToken {
  token: string;
  expiresAt: number;
}

/** "API Key|Secret Key" */
export function splitBaiduKey(key: string): { clientId: string; clientSecret: string } {
  const parts = key.split('|');
  if (parts.length !== 2 || parts[0].trim() === '' || parts[1].trim() === '') {
    throw new UpstreamLocalError('invalid baidu key: the channel key must be "API Key|Secret Key"', 'invalid_channel_key', 500);
  }
  return { clientId: parts[0].trim(), clientSecret: parts[1].trim() };
}

function exchangeFailure(status: number, message: string, code: string): UpstreamFailure {
  return { ok: false, status, error: { message, type: 'baidu_error', param: '', code } };
}

/**
 * Baidu's OAuth access tokens (client_credentials with the key's API Key and Secret Key), cached per key. The exchange
 * goes to the channel's base URL (new-api always called aip.baidubce.com, unreachable through a proxy or in a test).
 * An expired token is exchanged before the request; one within an hour of expiry is used while a new one is fetched in
 * the background. Concurrent requests for the same key share one exchange, so it is a detached call with its own
 * 5 s timeout: a client that leaves (the one whose request started the exchange) cancels nothing for the others.
 */
export class BaiduTokenCache {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly pending = new Map<string, Promise<CachedToken>>();

  constructor(private readonly now: () => number) {}

  async token(key: string, baseUrl: string, call: UpstreamCall): Promise<string> {
    const cached = this.tokens.get(key);
    const now = this.now();
    if (cached && now < cached.expiresAt) {
      if (now >= cached.expiresAt - REFRESH_WITHIN_MS) this.exchange(key, baseUrl, call).catch(() => undefined);
      return cached.token;
    }
    return (await this.exchange(key, baseUrl, call)).token;
  }

  /** Forgets a key's token (Baidu said it is invalid), so the next request exchanges again. */
  forget(key: string): void {
    this.tokens.delete(key);
  }

  private exchange(key: string, baseUrl: string, call: UpstreamCall): Promise<CachedToken> {
    const running = this.pending.get(key);
    if (running) return running;
    const promise = this.fetchToken(key, baseUrl, call).finally(() => this.pending.delete(key));
    this.pending.set(key, promise);
    return promise;
  }

  private async fetchToken(key: string, baseUrl: string, call: UpstreamCall): Promise<CachedToken> {
    const { clientId, clientSecret } = splitBaiduKey(key);
    const query = `grant_type=client_credentials&client_id=${encodeURIComponent(clientId)}&client_secret=${encodeURIComponent(clientSecret)}`;
    const target = upstreamTarget(splitBaseUrl(baseUrl), `/oauth/2.0/token?${query}`);
    const response = await call(
      {
        ...target,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: undefined,
      },
      { detached: { timeoutMs: BAIDU_TOKEN_TIMEOUT_MS } },
    );
    const body = parseJsonObject(response.body);
    if (body && typeof body.error === 'string' && body.error !== '') {
      const description = typeof body.error_description === 'string' ? body.error_description : '';
      const status = response.status >= 400 ? response.status : 401;
      throw new UpstreamCallFailure(exchangeFailure(status, description ? `${body.error}: ${description}` : body.error, body.error));
    }
    if (!body || typeof body.access_token !== 'string' || body.access_token === '' || response.status >= 300) {
      const status = response.status >= 400 ? response.status : 500;
      throw new UpstreamCallFailure(
        exchangeFailure(status, `baidu token exchange failed with status ${response.status}`, 'get_access_token_failed'),
      );
    }
    const expiresIn = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 30 * 24 * 3600;
    const token: CachedToken = { token: body.access_token, expiresAt: this.now() + expiresIn * 1000 };
    if (this.tokens.size > 1000) this.tokens.clear();
    this.tokens.set(key, token);
    return token;
  }
}
