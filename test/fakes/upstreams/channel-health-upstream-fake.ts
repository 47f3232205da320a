import type { ServerResponse } from 'node:http';
import { HttpFake, type RecordedRequest, sendJson } from '../http-fake';

/**
 * An OpenAI-style upstream for the channel-health tests, speaking the real wire shapes:
 * - `POST /v1/chat/completions` answers by `mode`: `ok` (a chat.completion with usage), `revoked` (OpenAI's 401
 *   invalid_api_key error), `flaky` (a 500 server_error with probability `errorRate`, from a seeded generator so a
 *   run is repeatable), `slow` (ok after `delayMs`);
 * - the balance endpoints new-api queries: OpenAI dashboard billing (subscription + usage), SiliconFlow
 *   `/v1/user/info`, AIProxy `/api/report/getUserOverview` and the credit-grants endpoint, from `balance`.
 */
export type UpstreamMode = 'ok' | 'revoked' | 'flaky';

export class ChannelHealthUpstreamFake extends HttpFake {
  mode: UpstreamMode = 'ok';
  errorRate = 0.02;
  /** USD left; the dashboard answers hard_limit_usd = balance + usage. */
  balance = 42.5;
  usageCents = 750;
  hasPaymentMethod = true;
  chatRequests = 0;
  chatFailures = 0;
  private seed = 20241010;

  constructor() {
    super((request, response) => this.answer(request, response));
  }

  /** Deterministic pseudo-random numbers (mulberry32). */
  private random(): number {
    this.seed = (this.seed + 0x6d2b79f5) | 0;
    let t = Math.imul(this.seed ^ (this.seed >>> 15), 1 | this.seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  private answer(request: RecordedRequest, response: ServerResponse): void {
    const path = request.url.split('?')[0];
    if (path === '/v1/chat/completions' && request.method === 'POST') return this.chat(request, response);
    if (path === '/v1/dashboard/billing/subscription') {
      return sendJson(response, 200, {
        object: 'billing_subscription',
        has_payment_method: this.hasPaymentMethod,
        hard_limit_usd: this.balance + this.usageCents / 100,
      });
    }
    if (path === '/v1/dashboard/billing/usage') return sendJson(response, 200, { object: 'list', total_usage: this.usageCents });
    if (path === '/v1/user/info') {
      return sendJson(response, 200, {
        code: 20000,
        message: 'OK',
        status: true,
        data: { id: 'u1', balance: String(this.balance), chargeBalance: '0', totalBalance: String(this.balance) },
      });
    }
    if (path === '/api/report/getUserOverview') return sendJson(response, 200, { success: true, data: { totalPoints: this.balance } });
    if (path === '/dashboard/billing/credit_grants') {
      return sendJson(response, 200, {
        object: 'credit_summary',
        total_granted: 100,
        total_used: 100 - this.balance,
        total_available: this.balance,
        total_remaining: this.balance,
      });
    }
    sendJson(response, 404, {
      error: { message: `Invalid URL (${request.method} ${path})`, type: 'invalid_request_error', param: null, code: null },
    });
  }

  private chat(request: RecordedRequest, response: ServerResponse): void {
    this.chatRequests += 1;
    if (request.headers.authorization !== 'Bearer sk-upstream-good' || this.mode === 'revoked') {
      this.chatFailures += 1;
      return sendJson(response, 401, {
        error: {
          message: 'Incorrect API key provided: sk-upst***good.',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      });
    }
    if (this.mode === 'flaky' && this.random() < this.errorRate) {
      this.chatFailures += 1;
      return sendJson(response, 500, {
        error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null },
      });
    }
    const body = JSON.parse(request.body || '{}') as { model?: string };
    sendJson(response, 200, {
      id: `chatcmpl-${this.chatRequests}`,
      object: 'chat.completion',
      created: 1741570283,
      model: body.model ?? 'gpt-4o-mini',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi', refusal: null }, logprobs: null, finish_reason: 'length' }],
      usage: { prompt_tokens: 8, completion_tokens: 1, total_tokens: 9 },
    });
  }
}
