import type { ServerResponse } from 'node:http';
import { HttpFake, type RecordedRequest, sendJson } from '../http-fake';

/**
 * A fake MiniMax v2 chat API (POST /v1/text/chatcompletion_v2): OpenAI's chat body and answer with MiniMax's extra
 * fields, errors as HTTP 200 with `base_resp` (a wrong `Authorization: Bearer` key is status_code 1004 login fail, as
 * MiniMax answers). Streams are OpenAI-style chunks, the finishing one carrying usage and base_resp.
 */
export class MiniMaxFake extends HttpFake {
  apiKey = 'minimax-key';
  reply = 'Hello from the fake MiniMax.';
  promptTokens = 40;
  completionTokens = 7;
  private readonly failures: Array<{ code: number; message: string }> = [];

  constructor() {
    super((request, response) => this.answer(request, response));
  }

  failNext(code: number, message: string): this {
    this.failures.push({ code, message });
    return this;
  }

  private answer(request: RecordedRequest, response: ServerResponse): void {
    const baseError = (code: number, message: string) =>
      sendJson(response, 200, {
        id: '',
        choices: null,
        created: 0,
        model: '',
        object: '',
        usage: { total_tokens: 0 },
        base_resp: { status_code: code, status_msg: message },
      });
    if (request.method !== 'POST' || request.url !== '/v1/text/chatcompletion_v2') return sendJson(response, 404, { message: 'Not Found' });
    if (request.headers.authorization !== `Bearer ${this.apiKey}`)
      return baseError(1004, "login fail: Please carry the API secret key in the 'Authorization' field of the request header");
    const failure = this.failures.shift();
    if (failure) return baseError(failure.code, failure.message);
    let body: Record<string, any>;
    try {
      body = JSON.parse(request.body) as Record<string, any>;
    } catch {
      return baseError(2013, 'invalid params, invalid json');
    }
    if (!Array.isArray(body.messages) || body.messages.length === 0) return baseError(2013, 'invalid params, messages is empty');
    const id = `mm-${this.requests.length}`;
    const created = Math.floor(Date.now() / 1000);
    const usage = {
      total_tokens: this.promptTokens + this.completionTokens,
      total_characters: 0,
      prompt_tokens: this.promptTokens,
      completion_tokens: this.completionTokens,
    };
    const extra = {
      input_sensitive: false,
      output_sensitive: false,
      input_sensitive_type: 0,
      output_sensitive_type: 0,
      output_sensitive_int: 0,
    };
    const ok = { status_code: 0, status_msg: '' };
    if (body.stream !== true) {
      return sendJson(response, 200, {
        id,
        choices: [
          {
            finish_reason: 'stop',
            index: 0,
            message: { content: this.reply, role: 'assistant', name: 'MM Intelligent Assistant', audio_content: '' },
          },
        ],
        created,
        model: body.model,
        object: 'chat.completion',
        usage,
        ...extra,
        base_resp: ok,
      });
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta: Record<string, unknown>, finish?: string) => {
      const choice: Record<string, unknown> = {
        index: 0,
        delta: { ...delta, role: 'assistant', name: 'MM Intelligent Assistant', audio_content: '' },
      };
      if (finish) choice.finish_reason = finish;
      const event = {
        id,
        choices: [choice],
        created,
        model: body.model,
        object: 'chat.completion.chunk',
        usage: finish ? usage : null,
        ...extra,
        ...(finish ? { base_resp: ok } : {}),
      };
      return `data: ${JSON.stringify(event)}\n\n`;
    };
    for (const piece of this.reply.split(/(?<=\s)/)) response.write(chunk({ content: piece }));
    response.end(chunk({ content: '' }, 'stop'));
  }
}
