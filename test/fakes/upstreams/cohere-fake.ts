import type { ServerResponse } from 'node:http';
import { HttpFake, type RecordedRequest, sendJson } from '../http-fake';

/**
 * A fake Cohere v1 API (https://docs.cohere.com/v1/reference/chat, /v1/reference/rerank). `Authorization: Bearer
 * <apiKey>` is required (else 401 `{"message":"invalid api token"}`, as Cohere answers); chat needs a non-empty
 * `message` and answers `reply` with billed_units input `inputTokens` / output `outputTokens`; a stream is Cohere's
 * newline-delimited JSON (stream-start, text-generation…, stream-end). Rerank scores each document by the words it
 * shares with the query and bills one search unit. `failNext` queues an error status and message.
 */
export class CohereFake extends HttpFake {
  apiKey = 'cohere-key';
  reply = 'Hello from the fake Cohere.';
  inputTokens = 13;
  outputTokens = 6;
  private readonly failures: Array<{ status: number; message: string }> = [];

  constructor() {
    super((request, response) => this.answer(request, response));
  }

  failNext(status: number, message: string): this {
    this.failures.push({ status, message });
    return this;
  }

  private answer(request: RecordedRequest, response: ServerResponse): void {
    const path = request.url.split('?')[0];
    if (request.method !== 'POST' || (path !== '/v1/chat' && path !== '/v1/rerank'))
      return sendJson(response, 404, { message: 'Not Found' });
    if (request.headers.authorization !== `Bearer ${this.apiKey}`) return sendJson(response, 401, { message: 'invalid api token' });
    const failure = this.failures.shift();
    if (failure) return sendJson(response, failure.status, { message: failure.message });
    let body: Record<string, any>;
    try {
      body = JSON.parse(request.body) as Record<string, any>;
    } catch {
      return sendJson(response, 400, { message: 'invalid request: body is not valid JSON' });
    }
    if (path === '/v1/rerank') return this.rerank(body, response);
    if (typeof body.message !== 'string' || body.message === '')
      return sendJson(response, 400, {
        message: 'invalid request: message must be at least 1 token long or tool results must be specified.',
      });
    const meta = { api_version: { version: '1' }, billed_units: { input_tokens: this.inputTokens, output_tokens: this.outputTokens } };
    const id = `fake-${this.requests.length}`;
    if (body.stream !== true) {
      return sendJson(response, 200, {
        response_id: id,
        text: this.reply,
        generation_id: `gen-${id}`,
        chat_history: [],
        finish_reason: 'COMPLETE',
        meta,
      });
    }
    response.writeHead(200, { 'content-type': 'application/stream+json' });
    const send = (event: unknown) => response.write(`${JSON.stringify(event)}\n`);
    send({ is_finished: false, event_type: 'stream-start', generation_id: `gen-${id}` });
    for (const piece of this.reply.split(/(?<=\s)/)) send({ is_finished: false, event_type: 'text-generation', text: piece });
    send({
      is_finished: true,
      event_type: 'stream-end',
      response: { response_id: id, text: this.reply, generation_id: `gen-${id}`, finish_reason: 'COMPLETE', meta },
      finish_reason: 'COMPLETE',
    });
    response.end();
  }

  private rerank(body: Record<string, any>, response: ServerResponse): void {
    if (typeof body.query !== 'string' || !Array.isArray(body.documents))
      return sendJson(response, 400, { message: 'invalid request: query and documents are required' });
    const words = new Set(body.query.toLowerCase().split(/\W+/).filter(Boolean));
    const texts: string[] = body.documents.map((document: unknown) =>
      typeof document === 'string' ? document : String((document as { text?: string }).text ?? ''),
    );
    const results = texts
      .map((text, index) => {
        const own = text.toLowerCase().split(/\W+/).filter(Boolean);
        const score = own.length === 0 ? 0 : own.filter((word) => words.has(word)).length / own.length;
        return { index, relevance_score: score, ...(body.return_documents ? { document: { text } } : {}) };
      })
      .sort((a, b) => b.relevance_score - a.relevance_score)
      .slice(0, typeof body.top_n === 'number' ? body.top_n : texts.length);
    sendJson(response, 200, { id: 'rerank-fake', results, meta: { api_version: { version: '1' }, billed_units: { search_units: 1 } } });
  }
}
