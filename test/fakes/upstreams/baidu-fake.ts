import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { HttpFake, type RecordedRequest, sendJson } from '../http-fake';

/**
 * A fake Baidu Qianfan (Wenxin workshop) server: the OAuth exchange `POST /oauth/2.0/token?grant_type=client_credentials
 * &client_id=…&client_secret=…` (https://ai.baidu.com/ai-doc/REFERENCE/Ck3dwjhhu) handing out access tokens that live
 * `tokenLifetimeSeconds`, and `POST /rpc/2.0/ai_custom/v1/wenxinworkshop/{chat|embeddings}/{endpoint}?access_token=…`
 * answering as Baidu does: `{id, result, usage}`, SSE `data: {result, is_end, usage}` events for streams, and errors as
 * HTTP 200 with `{error_code, error_msg}` (110 for an unknown or revoked token, 18 for the QPS limit).
 */
export class BaiduFake extends HttpFake {
  /** API Key → Secret Key */
  apps = new Map<string, string>([['bd-api-key', 'bd-secret-key']]);
  reply = 'Hello from the fake ERNIE.';
  promptTokens = 9;
  completionTokens = 7;
  tokenLifetimeSeconds = 2_592_000;
  /** Delay before an exchange answers (a slow OAuth server). */
  tokenDelayMs = 0;
  /** Exchanges whose caller hung up before the answer (the token was never handed out). */
  abandonedExchanges = 0;
  /** Delay before a chat or embeddings call answers. */
  apiDelayMs = 0;
  /** Endpoints that answer the QPS limit (error 18). */
  limited = new Set<string>(['ernie-limited']);
  /** Access token → API Key; `revoke` drops an app's tokens. */
  private readonly tokens = new Map<string, string>();

  constructor() {
    super((request, response) => this.answer(request, response));
  }

  get tokenRequests(): RecordedRequest[] {
    return this.requests.filter((request) => request.url.startsWith('/oauth/2.0/token'));
  }

  get apiRequests(): RecordedRequest[] {
    return this.requests.filter((request) => request.url.startsWith('/rpc/'));
  }

  revoke(apiKey: string): void {
    this.apps.delete(apiKey);
    for (const [token, owner] of this.tokens) if (owner === apiKey) this.tokens.delete(token);
  }

  private async answer(request: RecordedRequest, response: ServerResponse): Promise<void> {
    const url = new URL(request.url, 'http://baidu.local');
    if (url.pathname === '/oauth/2.0/token') return this.exchange(request, url, response);
    if (this.apiDelayMs) {
      await new Promise((resolve) => setTimeout(resolve, this.apiDelayMs));
      if (response.destroyed) return;
    }
    const match = /^\/rpc\/2\.0\/ai_custom\/v1\/wenxinworkshop\/(chat|embeddings)\/([^/]+)$/.exec(url.pathname);
    if (request.method !== 'POST' || !match) return sendJson(response, 404, { error_code: 3, error_msg: 'Unsupported openapi method' });
    const token = url.searchParams.get('access_token') ?? '';
    if (!this.tokens.has(token)) return sendJson(response, 200, { error_code: 110, error_msg: 'Access token invalid or no longer valid' });
    let body: Record<string, any>;
    try {
      body = JSON.parse(request.body) as Record<string, any>;
    } catch {
      return sendJson(response, 200, { error_code: 336003, error_msg: 'the request body is not valid JSON' });
    }
    if (this.limited.has(match[2])) return sendJson(response, 200, { error_code: 18, error_msg: 'Open api qps request limit reached' });
    if (match[1] === 'embeddings') return this.embeddings(body, response);
    if (!Array.isArray(body.messages) || body.messages.length % 2 !== 1) {
      return sendJson(response, 200, { error_code: 336006, error_msg: 'the length of messages must be an odd number' });
    }
    if (body.messages.some((message: Record<string, unknown>) => message.role === 'system')) {
      return sendJson(response, 200, { error_code: 336003, error_msg: 'invalid role: system (use the system field)' });
    }
    const id = `as-${randomBytes(5).toString('hex')}`;
    const created = Math.floor(Date.now() / 1000);
    const usage = {
      prompt_tokens: this.promptTokens,
      completion_tokens: this.completionTokens,
      total_tokens: this.promptTokens + this.completionTokens,
    };
    if (body.stream !== true) {
      return sendJson(response, 200, {
        id,
        object: 'chat.completion',
        created,
        result: this.reply,
        is_truncated: false,
        need_clear_history: false,
        usage,
      });
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const pieces = this.reply.split(/(?<=\s)/);
    pieces.forEach((piece, index) => {
      const last = index === pieces.length - 1;
      // Baidu repeats the prompt count on every event; only the last one's total counts the whole answer.
      const eventUsage = last ? usage : { prompt_tokens: this.promptTokens, completion_tokens: 0, total_tokens: this.promptTokens };
      const event = {
        id,
        object: 'chat.completion',
        created,
        sentence_id: index,
        is_end: last,
        is_truncated: false,
        result: piece,
        need_clear_history: false,
        usage: eventUsage,
      };
      response.write(`data: ${JSON.stringify(event)}\n\n`);
    });
    response.end();
  }

  private async exchange(request: RecordedRequest, url: URL, response: ServerResponse): Promise<void> {
    if (this.tokenDelayMs) {
      await new Promise((resolve) => setTimeout(resolve, this.tokenDelayMs));
      if (response.destroyed || response.socket?.destroyed) {
        this.abandonedExchanges++;
        return;
      }
    }
    if (request.method !== 'POST') return sendJson(response, 405, { error: 'invalid_request', error_description: 'POST only' });
    if (url.searchParams.get('grant_type') !== 'client_credentials') {
      return sendJson(response, 400, { error: 'unsupported_grant_type', error_description: 'unsupported grant type' });
    }
    const apiKey = url.searchParams.get('client_id') ?? '';
    const secret = this.apps.get(apiKey);
    if (secret === undefined) return sendJson(response, 401, { error: 'invalid_client', error_description: 'unknown client id' });
    if (url.searchParams.get('client_secret') !== secret) {
      return sendJson(response, 401, { error: 'invalid_client', error_description: 'Client authentication failed' });
    }
    const token = `24.${randomBytes(16).toString('hex')}.${this.tokenLifetimeSeconds}.${Math.floor(Date.now() / 1000)}.282335-35163321`;
    this.tokens.set(token, apiKey);
    sendJson(response, 200, {
      refresh_token: `25.${randomBytes(16).toString('hex')}.315360000.1798284651.282335-35163321`,
      expires_in: this.tokenLifetimeSeconds,
      session_key: randomBytes(24).toString('base64'),
      access_token: token,
      scope: 'public brain_all_scope wenxinworkshop_mgr ai_custom_yiyan_com',
      session_secret: randomBytes(16).toString('hex'),
    });
  }

  private embeddings(body: Record<string, any>, response: ServerResponse): void {
    if (!Array.isArray(body.input) || body.input.length === 0 || !body.input.every((text: unknown) => typeof text === 'string')) {
      return sendJson(response, 200, { error_code: 336003, error_msg: 'input must be a non-empty list of strings' });
    }
    const texts = body.input as string[];
    sendJson(response, 200, {
      id: `as-${randomBytes(5).toString('hex')}`,
      object: 'embedding_list',
      created: Math.floor(Date.now() / 1000),
      data: texts.map((text, index) => ({ object: 'embedding', embedding: [0.25 * (index + 1), -0.5, text.length / 100], index })),
      usage: { prompt_tokens: texts.length * 3, total_tokens: texts.length * 3 },
    });
  }
}
