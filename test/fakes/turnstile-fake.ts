import { randomBytes } from 'node:crypto';
import { HttpFake, sendJson } from './http-fake';

/**
 * Cloudflare Turnstile siteverify (https://developers.cloudflare.com/turnstile/get-started/server-side-validation/):
 * form-encoded `secret`, `response`, `remoteip` → `{success, "error-codes"}`. Tokens are single use.
 */
export class TurnstileFake extends HttpFake {
  secret = 'turnstile-secret';
  private readonly tokens = new Set<string>();

  constructor() {
    super((request, response) => {
      if (request.method !== 'POST' || !request.url.startsWith('/turnstile/v0/siteverify')) {
        return sendJson(response, 404, { success: false, 'error-codes': ['not-found'] });
      }
      const form = new URLSearchParams(request.body);
      if (form.get('secret') !== this.secret) return sendJson(response, 200, { success: false, 'error-codes': ['invalid-input-secret'] });
      const token = form.get('response') ?? '';
      if (!token) return sendJson(response, 200, { success: false, 'error-codes': ['missing-input-response'] });
      if (!this.tokens.delete(token)) return sendJson(response, 200, { success: false, 'error-codes': ['timeout-or-duplicate'] });
      sendJson(response, 200, {
        success: true,
        challenge_ts: new Date().toISOString(),
        hostname: 'localhost',
        'error-codes': [],
        action: '',
        cdata: '',
      });
    });
  }

  static async start(): Promise<TurnstileFake> {
    return new TurnstileFake().start();
  }

  get verifyUrl(): string {
    return `${this.baseUrl}/turnstile/v0/siteverify`;
  }

  /** A token the widget would give a browser that passed the challenge. */
  issueToken(): string {
    const token = `0.${randomBytes(24).toString('base64url')}`;
    this.tokens.add(token);
    return token;
  }
}
