import { randomBytes } from 'node:crypto';
import { HttpFake, type RecordedRequest, sendJson } from './http-fake';
import type { ServerResponse } from 'node:http';

export interface GitHubFakeUser {
  login: string;
  id?: number;
  name?: string | null;
  email?: string | null;
}

/**
 * GitHub's OAuth web flow as documented (https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps):
 * `POST /login/oauth/access_token` (JSON when asked with Accept: application/json, else form-encoded; a bad
 * code is HTTP 200 with `error`), and the REST `GET /user` (401 "Bad credentials" without a valid token).
 * Serve both hosts (github.com and api.github.com) from one base URL. Codes are single use, as on GitHub.
 */
export class GitHubFake extends HttpFake {
  clientId = 'test-client-id';
  clientSecret = 'test-client-secret';
  private readonly codes = new Map<string, GitHubFakeUser>();
  private readonly tokens = new Map<string, GitHubFakeUser>();
  private nextId = 1000;

  constructor() {
    super((request, response) => this.route(request, response));
  }

  static async start(): Promise<GitHubFake> {
    return new GitHubFake().start();
  }

  /** A code the user would bring back from GitHub's consent screen. */
  issueCode(user: GitHubFakeUser): string {
    const code = randomBytes(10).toString('hex');
    this.codes.set(code, { id: this.nextId++, name: null, email: null, ...user });
    return code;
  }

  private route(request: RecordedRequest, response: ServerResponse): void {
    const path = request.url.split('?')[0];
    if (request.method === 'POST' && path === '/login/oauth/access_token') return this.exchange(request, response);
    if (request.method === 'GET' && path === '/user') return this.user(request, response);
    sendJson(response, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
  }

  private exchange(request: RecordedRequest, response: ServerResponse): void {
    const type = String(request.headers['content-type'] ?? '');
    const params: Record<string, string> = type.includes('json')
      ? (JSON.parse(request.body || '{}') as Record<string, string>)
      : Object.fromEntries(new URLSearchParams(request.body));
    const wantsJson = String(request.headers.accept ?? '').includes('application/json');
    const answer = (body: Record<string, string>): void => {
      if (wantsJson) return sendJson(response, 200, body);
      response.writeHead(200, { 'content-type': 'application/x-www-form-urlencoded' }).end(new URLSearchParams(body).toString());
    };

    if (params.client_id !== this.clientId || params.client_secret !== this.clientSecret) {
      return answer({
        error: 'incorrect_client_credentials',
        error_description: 'The client_id and/or client_secret passed are incorrect.',
      });
    }
    const user = this.codes.get(params.code ?? '');
    if (!user) {
      return answer({ error: 'bad_verification_code', error_description: 'The code passed is incorrect or expired.' });
    }
    this.codes.delete(params.code);
    const token = `gho_${randomBytes(18).toString('hex')}`;
    this.tokens.set(token, user);
    answer({ access_token: token, token_type: 'bearer', scope: '' });
  }

  private user(request: RecordedRequest, response: ServerResponse): void {
    const authorization = String(request.headers.authorization ?? '');
    const token = authorization.replace(/^(Bearer|token) /i, '');
    const user = this.tokens.get(token);
    if (!user)
      return sendJson(response, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest', status: '401' });
    sendJson(response, 200, {
      login: user.login,
      id: user.id,
      node_id: `MDQ6VXNlcj${user.id}`,
      type: 'User',
      site_admin: false,
      name: user.name ?? null,
      email: user.email ?? null,
    });
  }
}
