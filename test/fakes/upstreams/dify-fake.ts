import type { ServerResponse } from 'node:http';
import { HttpFake, type RecordedRequest, sendJson } from '../http-fake';

/**
 * A fake Dify app API (https://docs.dify.ai/guides/application-publishing/developing-with-apis): POST
 * /v1/chat-messages with `Authorization: Bearer <appKey>` (else 401 `{code: "unauthorized", message: "Access token
 * is invalid"}`), a non-empty `query`, `inputs` and `user`. Blocking answers `{answer, conversation_id,
 * metadata.usage}`; streaming sends workflow_started, agent_thought, message / agent_message pieces and message_end
 * with the usage. `failStreamNext` makes the next stream end with Dify's `error` event after one piece;
 * `playStreamNext` answers the next stream with recorded SSE bytes (a chatflow's workflow and node events, an agent's
 * agent_thought events: server/src/upstreams/dify/__fixtures__).
 */
export class DifyFake extends HttpFake {
  appKey = 'app-fake';
  reply = 'Hello from the fake Dify app.';
  promptTokens = 30;
  completionTokens = 8;
  private streamFailures: string[] = [];
  private recordedStreams: Buffer[] = [];

  constructor() {
    super((request, response) => this.answer(request, response));
  }

  /** The next streaming request is answered with these recorded SSE bytes, as they are (after the auth and body checks). */
  playStreamNext(bytes: Buffer): this {
    this.recordedStreams.push(bytes);
    return this;
  }

  failStreamNext(message: string): this {
    this.streamFailures.push(message);
    return this;
  }

  private answer(request: RecordedRequest, response: ServerResponse): void {
    if (request.method !== 'POST' || request.url !== '/v1/chat-messages')
      return sendJson(response, 404, { code: 'not_found', message: 'Not Found', status: 404 });
    if (request.headers.authorization !== `Bearer ${this.appKey}`)
      return sendJson(response, 401, { code: 'unauthorized', message: 'Access token is invalid', status: 401 });
    let body: Record<string, any>;
    try {
      body = JSON.parse(request.body) as Record<string, any>;
    } catch {
      return sendJson(response, 400, { code: 'invalid_param', message: 'Invalid JSON', status: 400 });
    }
    if (typeof body.query !== 'string' || body.query === '' || typeof body.inputs !== 'object' || typeof body.user !== 'string')
      return sendJson(response, 400, { code: 'invalid_param', message: 'query, inputs and user are required', status: 400 });
    const conversation = `conv-${this.requests.length}`;
    const usage = {
      prompt_tokens: this.promptTokens,
      completion_tokens: this.completionTokens,
      total_tokens: this.promptTokens + this.completionTokens,
      currency: 'USD',
    };
    const created = Math.floor(Date.now() / 1000);
    if (body.response_mode !== 'streaming') {
      return sendJson(response, 200, {
        event: 'message',
        task_id: 'task',
        id: `msg-${conversation}`,
        message_id: `msg-${conversation}`,
        conversation_id: conversation,
        mode: 'chat',
        answer: this.reply,
        metadata: { usage, retriever_resources: [] },
        created_at: created,
      });
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const recorded = this.recordedStreams.shift();
    if (recorded) {
      response.end(recorded);
      return;
    }
    const send = (event: Record<string, unknown>) => response.write(`data: ${JSON.stringify(event)}\n\n`);
    send({
      event: 'workflow_started',
      task_id: 'task',
      workflow_run_id: 'run',
      data: { id: 'run', workflow_id: 'wf', created_at: created },
    });
    send({
      event: 'agent_thought',
      id: 'thought',
      task_id: 'task',
      message_id: 'm',
      position: 1,
      thought: '',
      conversation_id: conversation,
    });
    const failure = this.streamFailures.shift();
    const pieces = this.reply.split(/(?<=\s)/);
    for (const [index, piece] of pieces.entries()) {
      send({
        event: index % 2 ? 'agent_message' : 'message',
        message_id: 'm',
        conversation_id: conversation,
        answer: piece,
        created_at: created,
      });
      if (failure) {
        send({ event: 'error', task_id: 'task', message_id: 'm', status: 400, code: 'completion_request_error', message: failure });
        response.end();
        return;
      }
    }
    response.write('event: ping\n\n');
    send({ event: 'message_end', id: 'm', conversation_id: conversation, metadata: { usage, retriever_resources: [] } });
    response.end();
  }
}
