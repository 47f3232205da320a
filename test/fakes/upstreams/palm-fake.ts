import type { ServerResponse } from 'node:http';
import { HttpFake, type RecordedRequest, sendJson } from '../http-fake';

/**
 * A fake PaLM 2 API (generativelanguage v1beta2 `models/chat-bison-001:generateMessage`): `x-goog-api-key` must be
 * `apiKey` (else Google's 400 INVALID_ARGUMENT "API key not valid"), `prompt.messages` must be a non-empty list of
 * `{author, content}`; the answer is one candidate `reply` (PaLM reports no token usage). `filterNext` makes the
 * next answer a filtered one with no candidates.
 */
export class PalmFake extends HttpFake {
  apiKey = 'palm-key';
  reply = 'Hello from the fake PaLM.';
  private filtered = 0;

  constructor() {
    super((request, response) => this.answer(request, response));
  }

  filterNext(): this {
    this.filtered++;
    return this;
  }

  private answer(request: RecordedRequest, response: ServerResponse): void {
    const error = (status: number, state: string, message: string) =>
      sendJson(response, status, { error: { code: status, message, status: state } });
    if (request.method !== 'POST' || request.url !== '/v1beta2/models/chat-bison-001:generateMessage')
      return error(404, 'NOT_FOUND', 'Not Found');
    if (request.headers['x-goog-api-key'] !== this.apiKey)
      return error(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.');
    let body: Record<string, any>;
    try {
      body = JSON.parse(request.body) as Record<string, any>;
    } catch {
      return error(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
    }
    const messages = body.prompt?.messages;
    if (!Array.isArray(messages) || messages.length === 0 || messages.some((message: any) => typeof message.content !== 'string'))
      return error(400, 'INVALID_ARGUMENT', '* GenerateMessageRequest.prompt.messages: messages must not be empty');
    if (this.filtered > 0) {
      this.filtered--;
      return sendJson(response, 200, { filters: [{ reason: 'OTHER' }], messages });
    }
    sendJson(response, 200, { candidates: [{ author: '1', content: this.reply }], messages });
  }
}
