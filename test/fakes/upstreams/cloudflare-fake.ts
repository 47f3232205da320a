import type { ServerResponse } from 'node:http';
import { HttpFake, type RecordedRequest, sendJson } from '../http-fake';

/**
 * A fake Cloudflare Workers AI API (https://developers.cloudflare.com/workers-ai/): under
 * /client/v4/accounts/{accountId}/ai, the OpenAI-compatible v1/chat/completions and v1/embeddings, and run/{model}
 * for text generation (`{prompt}` → `{result: {response, usage}}`, or its SSE stream) and Whisper (raw audio bytes →
 * `{result: {text}}`). `Authorization: Bearer <token>` must match (else 401 with Cloudflare's envelope, code 10000
 * Authentication error); another account id is 404 code 7003, as Cloudflare routes it.
 */
export class CloudflareFake extends HttpFake {
  accountId = 'acc-fake';
  token = 'cf-token';
  reply = 'Hello from the fake Workers AI.';
  promptTokens = 10;
  completionTokens = 7;
  transcript = 'Hello, world.';

  constructor() {
    super((request, response) => this.answer(request, response));
  }

  private answer(request: RecordedRequest, response: ServerResponse): void {
    const envelope = (status: number, code: number, message: string) =>
      sendJson(response, status, { result: null, success: false, errors: [{ code, message }], messages: [] });
    const match = /^\/client\/v4\/accounts\/([^/]+)\/ai\/(.+)$/.exec(request.url.split('?')[0]);
    if (request.method !== 'POST' || !match) return envelope(404, 7000, 'No route for that URI');
    if (request.headers.authorization !== `Bearer ${this.token}`) return envelope(401, 10000, 'Authentication error');
    if (match[1] !== this.accountId)
      return envelope(404, 7003, `Could not route to ${request.url}, perhaps your object identifier is invalid?`);
    const rest = decodeURIComponent(match[2]);
    if (rest.startsWith('run/@cf/openai/whisper')) {
      if (request.headers['content-type'] !== 'application/octet-stream' || request.body.length === 0)
        return envelope(400, 5006, 'Type mismatch of /audio');
      return sendJson(response, 200, {
        result: { text: this.transcript, word_count: 2, vtt: `WEBVTT\n\n00:00.000 --> 00:00.900\n${this.transcript}\n\n` },
        success: true,
        errors: [],
        messages: [],
      });
    }
    let body: Record<string, any>;
    try {
      body = JSON.parse(request.body) as Record<string, any>;
    } catch {
      return envelope(400, 5006, 'Invalid JSON');
    }
    const usage = {
      prompt_tokens: this.promptTokens,
      completion_tokens: this.completionTokens,
      total_tokens: this.promptTokens + this.completionTokens,
    };
    if (rest === 'v1/chat/completions') return this.chat(body, response, usage);
    if (rest === 'v1/embeddings') {
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      return sendJson(response, 200, {
        object: 'list',
        data: inputs.map((_input: unknown, index: number) => ({ object: 'embedding', embedding: [0.25, -0.5, index], index })),
        model: body.model,
        usage: { prompt_tokens: 3 * inputs.length, total_tokens: 3 * inputs.length },
      });
    }
    if (rest.startsWith('run/')) {
      if (typeof body.prompt !== 'string' && !Array.isArray(body.messages))
        return envelope(400, 5006, 'Error: required properties at "/" are "prompt"');
      if (body.stream !== true)
        return sendJson(response, 200, { result: { response: this.reply, usage }, success: true, errors: [], messages: [] });
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const piece of this.reply.split(/(?<=\s)/)) response.write(`data: ${JSON.stringify({ response: piece, p: 'abc' })}\n\n`);
      response.write(`data: ${JSON.stringify({ response: '', usage })}\n\n`);
      response.end('data: [DONE]\n\n');
      return;
    }
    envelope(404, 7000, 'No route for that URI');
  }

  private chat(body: Record<string, any>, response: ServerResponse, usage: Record<string, number>): void {
    const id = `id-${this.requests.length}`;
    const created = Math.floor(Date.now() / 1000);
    if (body.stream !== true) {
      return sendJson(response, 200, {
        id,
        object: 'chat.completion',
        created,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: this.reply }, logprobs: null, finish_reason: 'stop' }],
        usage,
      });
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    response.write(chunk({ role: 'assistant', content: '' }, null));
    for (const piece of this.reply.split(/(?<=\s)/)) response.write(chunk({ content: piece }, null));
    response.write(chunk({}, 'stop'));
    response.end('data: [DONE]\n\n');
  }
}
