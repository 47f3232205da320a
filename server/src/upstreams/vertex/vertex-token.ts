import { createHash, createSign } from 'node:crypto';
import { parseJsonObject } from '../shared/map-upstream-error';
import { splitBaseUrl, upstreamTarget } from '../shared/upstream-url';
import type { UpstreamCallContext, UpstreamRequest } from '../upstream-adapter';
import { ConvertRequestError } from '../upstream-errors';
import type { ServiceAccount } from './vertex-credentials';

export const VERTEX_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
/** The assertion's lifetime (Google accepts at most one hour). */
const ASSERTION_SECONDS = 3600;
/** A cached token is replaced this long before it expires. */
const REFRESH_MARGIN_MS = 5 * 60 * 1000;

const base64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');

/** The RS256-signed JWT of the service-account grant (RFC 7523), its audience the key's `token_uri`. */
export function serviceAccountAssertion(account: ServiceAccount, nowMs: number): string {
  const iat = Math.floor(nowMs / 1000);
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const claims = base64url(
    JSON.stringify({ iss: account.clientEmail, scope: VERTEX_SCOPE, aud: account.tokenUri, iat, exp: iat + ASSERTION_SECONDS }),
  );
  let signature: Buffer;
  try {
    signature = createSign('RSA-SHA256').update(`${header}.${claims}`).sign(account.privateKey);
  } catch {
    throw new ConvertRequestError('the Vertex AI service-account private_key is not a usable RSA key');
  }
  return `${header}.${claims}.${base64url(signature)}`;
}

/** The token request: POST to the key's token_uri, or to the same path on the channel's base URL when it has one. */
export function tokenRequest(account: ServiceAccount, baseUrl: string | null, nowMs: number): UpstreamRequest {
  const uri = new URL(account.tokenUri);
  const target = upstreamTarget(splitBaseUrl(baseUrl || uri.origin), uri.pathname + uri.search);
  const body = new URLSearchParams({
    grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
    assertion: serviceAccountAssertion(account, nowMs),
  }).toString();
  return { ...target, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body };
}

interface CachedToken {
  token: string;
  refreshAt: number;
}

export type TokenResult = { ok: true; token: string } | { ok: false; status: number; body: Buffer };

/**
 * Access tokens per service account and token host, kept until shortly before they expire; concurrent requests
 * for a missing token share one exchange.
 */
export class VertexTokenCache {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly pending = new Map<string, Promise<TokenResult>>();

  constructor(private readonly now: () => number) {}

  async get(account: ServiceAccount, baseUrl: string | null, context: UpstreamCallContext): Promise<TokenResult> {
    const id = createHash('sha256')
      .update(`${account.clientEmail}\n${account.privateKey}\n${baseUrl ?? ''}`)
      .digest('hex');
    const cached = this.tokens.get(id);
    if (cached && cached.refreshAt > this.now()) return { ok: true, token: cached.token };
    let exchange = this.pending.get(id);
    if (!exchange) {
      exchange = this.exchange(id, account, baseUrl, context).finally(() => this.pending.delete(id));
      this.pending.set(id, exchange);
    }
    return exchange;
  }

  private async exchange(id: string, account: ServiceAccount, baseUrl: string | null, context: UpstreamCallContext): Promise<TokenResult> {
    const answer = await context.http(tokenRequest(account, baseUrl, this.now()));
    const body = await answer.body.bytes();
    const parsed = parseJsonObject(body);
    const token = typeof parsed?.access_token === 'string' ? parsed.access_token : '';
    if (answer.status < 200 || answer.status >= 300 || !token) return { ok: false, status: answer.status, body };
    const expiresIn = typeof parsed?.expires_in === 'number' ? parsed.expires_in : 3600;
    this.tokens.set(id, { token, refreshAt: this.now() + expiresIn * 1000 - REFRESH_MARGIN_MS });
    if (this.tokens.size > 1024) this.tokens.delete(this.tokens.keys().next().value!);
    return { ok: true, token };
  }
}
