import type { ServerResponse } from 'node:http';
import { HttpFake, type RecordedRequest, sendJson } from '../http-fake';
import { upstreamFixture } from './recorded-fixtures';

/**
 * A fake Anthropic Messages API (https://docs.anthropic.com/en/api/messages) whose answers follow from the
 * request: `x-api-key` must be `apiKey` (else 401 authentication_error), `anthropic-version` is required,
 * `max_tokens` and a user-first `messages` list are validated as Claude does; the answer is `reply`, with usage
 * input_tokens = `inputTokens` and output_tokens = `outputTokens`; streams are the real event sequence
 * (message_start, content_block_start, ping, content_block_delta…, content_block_stop, message_delta,
 * message_stop). `failNext` queues an error status and type for the next request (e.g. 529 overloaded_error).
 * With `recorded`, a valid request is answered with the recorded Claude answers (anthropic/__fixtures__) instead.
 */
export class AnthropicMessagesFake extends HttpFake {
  apiKey = 'claude-key';
  reply = 'Hello from the fake Claude.';
  inputTokens = 21;
  outputTokens = 9;
  /** Answer with the recorded responses (message-text.json, messages-stream-text.sse) rather than `reply`. */
  readonly recorded: boolean;
  private readonly failures: Array<{ status: number; type: string; message: string }> = [];

  constructor(options: { recorded?: boolean } = {}) {
    super((request, response) => this.answer(request, response));
    this.recorded = options.recorded ?? false;
  }

  failNext(status: number, type: string, message: string): this {
    this.failures.push({ status, type, message });
    return this;
  }

  bodies(): Array<Record<string, any>> {
    return this.requests.map((request) => JSON.parse(request.body || '{}') as Record<string, any>);
  }

  private answer(request: RecordedRequest, response: ServerResponse): void {
    const error = (status: number, type: string, message: string) =>
      sendJson(response, status, { type: 'error', error: { type, message } });
    if (request.method !== 'POST' || request.url.split('?')[0] !== '/v1/messages') return error(404, 'not_found_error', 'Not Found');
    if (request.headers['x-api-key'] !== this.apiKey) return error(401, 'authentication_error', 'invalid x-api-key');
    if (!request.headers['anthropic-version']) return error(400, 'invalid_request_error', 'anthropic-version: header is required');
    const failure = this.failures.shift();
    if (failure) return error(failure.status, failure.type, failure.message);
    let body: Record<string, any>;
    try {
      body = JSON.parse(request.body) as Record<string, any>;
    } catch {
      return error(400, 'invalid_request_error', 'There was an error parsing the body of your request.');
    }
    if (typeof body.max_tokens !== 'number') return error(400, 'invalid_request_error', 'max_tokens: Field required');
    if (!Array.isArray(body.messages) || body.messages.length === 0 || body.messages[0].role !== 'user') {
      return error(400, 'invalid_request_error', 'messages: first message must use the "user" role');
    }
    if (this.recorded) {
      const [type, name] =
        body.stream === true ? ['text/event-stream', 'messages-stream-text.sse'] : ['application/json', 'message-text.json'];
      response.writeHead(200, { 'content-type': type }).end(upstreamFixture('anthropic', name));
      return;
    }
    const id = `msg_fake${this.requests.length}`;
    const model = String(body.model);
    if (body.stream !== true) {
      sendJson(response, 200, {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [{ type: 'text', text: this.reply }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage: {
          input_tokens: this.inputTokens,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: this.outputTokens,
        },
      });
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    const send = (event: string, data: unknown) => response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    send('message_start', {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: this.inputTokens, output_tokens: 1 },
      },
    });
    send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    send('ping', { type: 'ping' });
    for (const piece of this.reply.split(/(?<=\s)/)) {
      send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } });
    }
    send('content_block_stop', { type: 'content_block_stop', index: 0 });
    send('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: this.outputTokens },
    });
    send('message_stop', { type: 'message_stop' });
    response.end();
  }
}
