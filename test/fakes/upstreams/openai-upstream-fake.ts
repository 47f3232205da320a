import type { ServerResponse } from 'node:http';
import { HttpFake, type RecordedRequest, sendJson } from '../http-fake';
import { upstreamFixture } from './recorded-fixtures';

/**
 * A fake OpenAI API (JSON and SSE, the real wire shapes, usage included) for relay tests. Answers are derived from
 * the request, so a test knows what to expect:
 * - chat: the reply text is `reply` (default "Hello from the fake upstream."), usage prompt = `promptTokens`,
 *   completion = `completionTokens`; with `tools` in the request, a tool call (fixture chat-completion-tool-calls);
 * - streams: the reply split in `streamPieces` chunks, then a usage chunk when the request asked for
 *   `stream_options.include_usage`, then `[DONE]`; `cutAfterChunks` drops the connection after that many chunks,
 *   `stallAfterChunks` goes silent after that many, `endlessEveryMs` never ends;
 * - completions, embeddings, moderations, images, audio speech, rerank: fixture-shaped answers with usage.
 * `next(...)` queues one-off behaviours (an error status and body, a delay, a cut, no answer at all) for the next
 * requests; `abandoned` lists the requests whose caller closed the connection before the answer ended.
 */
export interface FakeBehaviour {
  status?: number;
  body?: unknown;
  delayMs?: number;
  /** Streams only: drop the connection after this many content chunks. */
  cutAfterChunks?: number;
  /** Report no usage at all (the relay must count locally). */
  omitUsage?: boolean;
  /** Streams only: send every event in one write (one TCP segment), as a fast model or a busy upstream does. */
  oneWrite?: boolean;
  /** Streams only: the headers go out at once, the first event this much later (a model still thinking). */
  firstEventDelayMs?: number;
  /** Streams only, with firstEventDelayMs: written with the headers, before the wait (an SSE comment, as some providers send). */
  preamble?: string;
  /** Never answers (no headers): the request stays open until the caller closes its connection. */
  neverAnswer?: boolean;
  /** Streams only: after this many content chunks, sends nothing more and keeps the connection open (a stalled model). */
  stallAfterChunks?: number;
  /** Streams only: after the content chunks, one more content chunk every this many ms, never ending (until the caller closes). */
  endlessEveryMs?: number;
}

export class OpenAIUpstreamFake extends HttpFake {
  reply = 'Hello from the fake upstream.';
  promptTokens = 12;
  completionTokens = 7;
  streamPieces = 4;
  /** Delay between streamed chunks. */
  chunkDelayMs = 0;
  /** While set, every request waits for it before answering (tests hold requests in flight with it). */
  hold: Promise<void> | null = null;
  /**
   * When set, a request it answers with a status and body is refused before anything else (subclasses and
   * tests use it to check the credentials each provider sends); unset, every request is accepted.
   */
  authorize: ((request: RecordedRequest) => { status: number; body: unknown } | null) | null = null;
  /** Requests whose connection the caller closed before the answer ended, with when (Date.now()). */
  readonly abandoned: Array<{ url: string; at: number }> = [];
  private readonly queue: FakeBehaviour[] = [];

  constructor() {
    super((request, response) => this.answer(request, response));
  }

  /** Queues a behaviour for the next request (first in, first out). */
  next(behaviour: FakeBehaviour): this {
    this.queue.push(behaviour);
    return this;
  }

  /** The parsed JSON bodies of every request received so far. */
  bodies(): Array<Record<string, unknown>> {
    return this.requests.map((request) => {
      try {
        return JSON.parse(request.body) as Record<string, unknown>;
      } catch {
        return {};
      }
    });
  }

  protected async answer(request: RecordedRequest, response: ServerResponse): Promise<void> {
    const denied = this.authorize?.(request);
    if (denied) {
      sendJson(response, denied.status, denied.body);
      return;
    }
    const behaviour = this.queue.shift() ?? {};
    response.once('close', () => {
      if (!response.writableFinished) this.abandoned.push({ url: request.url, at: Date.now() });
    });
    if (behaviour.neverAnswer) return;
    if (this.hold) await this.hold;
    if (behaviour.delayMs) await sleep(behaviour.delayMs);
    if (behaviour.status && behaviour.status !== 200) {
      sendJson(
        response,
        behaviour.status,
        behaviour.body ?? { error: { message: 'fake failure', type: 'server_error', param: null, code: null } },
      );
      return;
    }
    const path = request.url.split('?')[0];
    const body = safeJson(request.body);
    const model = typeof body.model === 'string' ? body.model : 'gpt-4o-mini';
    if (path.endsWith('/chat/completions')) {
      if (body.stream === true) return this.streamChat(body, model, response, behaviour);
      if (Array.isArray(body.tools) && body.tools.length > 0) {
        const fixture = JSON.parse(upstreamFixture('openai-compatible', 'chat-completion-tool-calls.json')) as Record<string, unknown>;
        sendJson(response, 200, { ...fixture, model, usage: this.usage() });
        return;
      }
      sendJson(response, 200, {
        id: 'chatcmpl-fake1',
        object: 'chat.completion',
        created: 1741570283,
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: this.reply, refusal: null }, logprobs: null, finish_reason: 'stop' }],
        ...(behaviour.omitUsage ? {} : { usage: this.usage() }),
        system_fingerprint: 'fp_fake',
      });
      return;
    }
    if (path.endsWith('/completions')) {
      if (body.stream === true) return this.streamCompletion(body, model, response, behaviour);
      sendJson(response, 200, {
        id: 'cmpl-fake1',
        object: 'text_completion',
        created: 1741570283,
        model,
        choices: [{ text: this.reply, index: 0, logprobs: null, finish_reason: 'stop' }],
        ...(behaviour.omitUsage ? {} : { usage: this.usage() }),
      });
      return;
    }
    if (path.endsWith('/embeddings')) {
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      sendJson(response, 200, {
        object: 'list',
        data: inputs.map((_, index) => ({ object: 'embedding', index, embedding: [0.0023, -0.0093, 0.0157] })),
        model,
        usage: { prompt_tokens: this.promptTokens, total_tokens: this.promptTokens },
      });
      return;
    }
    if (path.endsWith('/moderations')) {
      sendJson(response, 200, JSON.parse(upstreamFixture('openai-compatible', 'moderation.json')));
      return;
    }
    if (path.endsWith('/images/generations')) {
      sendJson(response, 200, JSON.parse(upstreamFixture('openai-compatible', 'image-generation.json')));
      return;
    }
    if (path.endsWith('/audio/speech')) {
      response.writeHead(200, { 'content-type': 'audio/mpeg' }).end(Buffer.from('ID3fake-mp3-bytes'));
      return;
    }
    if (path.endsWith('/rerank')) {
      sendJson(response, 200, JSON.parse(upstreamFixture('openai-compatible', 'rerank-jina.json')));
      return;
    }
    sendJson(response, 404, { error: { message: `Invalid URL (POST ${path})`, type: 'invalid_request_error', param: null, code: null } });
  }

  private usage() {
    return {
      prompt_tokens: this.promptTokens,
      completion_tokens: this.completionTokens,
      total_tokens: this.promptTokens + this.completionTokens,
    };
  }

  private pieces(): string[] {
    const words = this.reply.split(/(?=\s)/);
    const size = Math.ceil(words.length / this.streamPieces);
    const out: string[] = [];
    for (let index = 0; index < words.length; index += size) out.push(words.slice(index, index + size).join(''));
    return out;
  }

  private async streamChat(
    body: Record<string, unknown>,
    model: string,
    response: ServerResponse,
    behaviour: FakeBehaviour,
  ): Promise<void> {
    const base = { id: 'chatcmpl-fakestream', object: 'chat.completion.chunk', created: 1741569952, model, system_fingerprint: 'fp_fake' };
    const wantsUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    if (behaviour.firstEventDelayMs) {
      if (behaviour.preamble) response.write(behaviour.preamble);
      else response.flushHeaders();
      await sleep(behaviour.firstEventDelayMs);
    }
    // oneWrite: every event is kept and sent by end() as one piece of the body.
    const held: string[] = [];
    const write = (data: unknown) =>
      behaviour.oneWrite ? held.push(`data: ${JSON.stringify(data)}\n\n`) : response.write(`data: ${JSON.stringify(data)}\n\n`);
    write({
      ...base,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
      ...(wantsUsage ? { usage: null } : {}),
    });
    let sent = 0;
    for (const piece of this.pieces()) {
      if (behaviour.cutAfterChunks !== undefined && sent >= behaviour.cutAfterChunks) {
        await sleep(5);
        response.socket?.destroy();
        return;
      }
      if (behaviour.stallAfterChunks !== undefined && sent >= behaviour.stallAfterChunks) return;
      if (this.chunkDelayMs) await sleep(this.chunkDelayMs);
      write({
        ...base,
        choices: [{ index: 0, delta: { content: piece }, logprobs: null, finish_reason: null }],
        ...(wantsUsage ? { usage: null } : {}),
      });
      sent++;
    }
    if (behaviour.endlessEveryMs) {
      while (!response.destroyed) {
        await sleep(behaviour.endlessEveryMs);
        write({ ...base, choices: [{ index: 0, delta: { content: ' more' }, logprobs: null, finish_reason: null }] });
      }
      return;
    }
    write({ ...base, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }], ...(wantsUsage ? { usage: null } : {}) });
    if (wantsUsage && !behaviour.omitUsage) write({ ...base, choices: [], usage: this.usage() });
    response.end(`${held.join('')}data: [DONE]\n\n`);
  }

  private async streamCompletion(
    body: Record<string, unknown>,
    model: string,
    response: ServerResponse,
    behaviour: FakeBehaviour,
  ): Promise<void> {
    const base = { id: 'cmpl-fakestream', object: 'text_completion', created: 1741569952, model };
    const wantsUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const piece of this.pieces()) {
      response.write(`data: ${JSON.stringify({ ...base, choices: [{ text: piece, index: 0, logprobs: null, finish_reason: null }] })}\n\n`);
    }
    response.write(`data: ${JSON.stringify({ ...base, choices: [{ text: '', index: 0, logprobs: null, finish_reason: 'stop' }] })}\n\n`);
    if (wantsUsage && !behaviour.omitUsage) response.write(`data: ${JSON.stringify({ ...base, choices: [], usage: this.usage() })}\n\n`);
    response.end('data: [DONE]\n\n');
  }
}

function safeJson(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
