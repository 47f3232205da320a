import type { ServerResponse } from 'node:http';
import { HttpFake, type RecordedRequest, sendJson } from '../http-fake';
import { upstreamFixture } from './recorded-fixtures';

/**
 * A fake Gemini API (https://ai.google.dev/api/generate-content): `POST /{version}/models/{model}:generateContent`
 * and `:streamGenerateContent` (SSE with `alt=sse`, else one JSON array, as Google answers). The key comes in
 * `x-goog-api-key` or `?key=` and must be `apiKey`, else 400 API_KEY_INVALID. Answers follow from the request:
 * the text is `reply`, usageMetadata prompt = `promptTokens`, candidates = `candidatesTokens`; stream events
 * carry the prompt count until the last, which has the finishReason and the full usage.
 * With `recorded`, a valid request is answered with the recorded Gemini answers (gemini/__fixtures__) instead.
 */
export class GeminiApiFake extends HttpFake {
  apiKey = 'gemini-key';
  reply = 'Hello from the fake Gemini.';
  promptTokens = 5;
  candidatesTokens = 8;
  /** Answer with the recorded responses (generate-content.json, stream-text.sse) rather than `reply`. */
  readonly recorded: boolean;
  /** One-shot: the next stream sends this many events, then an UNAVAILABLE error event, and ends. */
  errorAfterEvents: number | null = null;

  constructor(options: { recorded?: boolean } = {}) {
    super((request, response) => this.answer(request, response));
    this.recorded = options.recorded ?? false;
  }

  bodies(): Array<Record<string, any>> {
    return this.requests.map((request) => JSON.parse(request.body || '{}') as Record<string, any>);
  }

  private answer(request: RecordedRequest, response: ServerResponse): void {
    const url = new URL(request.url, 'http://gemini.local');
    const key = request.headers['x-goog-api-key'] ?? url.searchParams.get('key');
    if (key !== this.apiKey) {
      sendJson(response, 400, {
        error: {
          code: 400,
          message: 'API key not valid. Please pass a valid API key.',
          status: 'INVALID_ARGUMENT',
          details: [
            {
              '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
              reason: 'API_KEY_INVALID',
              domain: 'googleapis.com',
              metadata: { service: 'generativelanguage.googleapis.com' },
            },
          ],
        },
      });
      return;
    }
    const match = /^\/(v1|v1beta)\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(url.pathname);
    if (request.method !== 'POST' || !match) {
      sendJson(response, 404, { error: { code: 404, message: `Not found: ${url.pathname}`, status: 'NOT_FOUND' } });
      return;
    }
    let body: Record<string, any>;
    try {
      body = JSON.parse(request.body) as Record<string, any>;
    } catch {
      sendJson(response, 400, { error: { code: 400, message: 'Invalid JSON payload received.', status: 'INVALID_ARGUMENT' } });
      return;
    }
    if (!Array.isArray(body.contents) || body.contents.length === 0) {
      sendJson(response, 400, {
        error: { code: 400, message: '* GenerateContentRequest.contents: contents is not specified\n', status: 'INVALID_ARGUMENT' },
      });
      return;
    }
    if (this.recorded) {
      const [type, name] =
        match[3] === 'generateContent' ? ['application/json', 'generate-content.json'] : ['text/event-stream', 'stream-text.sse'];
      response.writeHead(200, { 'content-type': type }).end(upstreamFixture('gemini', name));
      return;
    }
    const modelVersion = decodeURIComponent(match[2]);
    const responseId = `fakeResp${this.requests.length}`;
    const promptOnly = { promptTokenCount: this.promptTokens, totalTokenCount: this.promptTokens };
    const full = {
      promptTokenCount: this.promptTokens,
      candidatesTokenCount: this.candidatesTokens,
      totalTokenCount: this.promptTokens + this.candidatesTokens,
    };
    const event = (text: string, last: boolean) => ({
      candidates: [{ content: { parts: [{ text }], role: 'model' }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 }],
      usageMetadata: last ? full : promptOnly,
      modelVersion,
      responseId,
    });
    if (match[3] === 'generateContent') {
      sendJson(response, 200, event(this.reply, true));
      return;
    }
    const pieces = this.reply.split(/(?<=\s)/);
    const events = pieces.map((piece, index) => event(piece, index === pieces.length - 1));
    if (url.searchParams.get('alt') !== 'sse') {
      sendJson(response, 200, events);
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const errorAfter = this.errorAfterEvents;
    this.errorAfterEvents = null;
    for (const [index, data] of events.entries()) {
      if (errorAfter !== null && index === errorAfter) {
        response.write(
          `data: ${JSON.stringify({ error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } })}\r\n\r\n`,
        );
        break;
      }
      response.write(`data: ${JSON.stringify(data)}\r\n\r\n`);
    }
    response.end();
  }
}
