import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { HttpFake, type RecordedRequest, sendJson } from '../http-fake';

/** A 1×1 PNG, served as the generated image. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==', 'base64');

/**
 * A fake DashScope (Alibaba Model Studio) server, answering as https://help.aliyun.com/zh/model-studio documents:
 * `POST /api/v1/services/aigc/text-generation/generation` (JSON, or SSE `event:result` events when `X-DashScope-SSE:
 * enable`, incremental with `parameters.incremental_output`), `POST /api/v1/services/embeddings/text-embedding/text-embedding`,
 * `POST /api/v1/services/aigc/text2image/image-synthesis` (asynchronous only: `X-DashScope-Async: enable`) and
 * `GET /api/v1/tasks/{id}` (PENDING on the first query, then SUCCEEDED with an image this fake serves under /results/).
 * `Authorization: Bearer <apiKey>` or 401 InvalidApiKey; a model in `limited` answers 429 Throttling.RateQuota.
 */
export class AliFake extends HttpFake {
  apiKey = 'sk-dashscope-good';
  reply = 'Hello from the fake Qwen.';
  inputTokens = 11;
  outputTokens = 8;
  limited = new Set<string>(['qwen-limited']);
  /** Task id → queries so far. */
  private readonly tasks = new Map<string, { queries: number; n: number }>();

  constructor() {
    super((request, response) => this.answer(request, response));
  }

  private error(response: ServerResponse, status: number, code: string, message: string): void {
    sendJson(response, status, { code, message, request_id: randomUUID() });
  }

  private answer(request: RecordedRequest, response: ServerResponse): void {
    const path = request.url.split('?')[0];
    if (request.method === 'GET' && path.startsWith('/results/')) {
      response.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      return;
    }
    if (request.headers.authorization !== `Bearer ${this.apiKey}`)
      return this.error(response, 401, 'InvalidApiKey', 'Invalid API-key provided.');
    const task = /^\/api\/v1\/tasks\/([^/]+)$/.exec(path);
    if (request.method === 'GET' && task) return this.queryTask(decodeURIComponent(task[1]), response);
    let body: Record<string, any>;
    try {
      body = JSON.parse(request.body) as Record<string, any>;
    } catch {
      return this.error(response, 400, 'InvalidParameter', 'The request body is not valid JSON.');
    }
    if (this.limited.has(String(body.model)))
      return this.error(response, 429, 'Throttling.RateQuota', 'Requests rate limit exceeded, please try again later.');
    if (path === '/api/v1/services/aigc/text-generation/generation') return this.generate(request, body, response);
    if (path === '/api/v1/services/embeddings/text-embedding/text-embedding') return this.embed(body, response);
    if (path === '/api/v1/services/aigc/text2image/image-synthesis') {
      if (request.headers['x-dashscope-async'] !== 'enable') {
        return this.error(response, 403, 'AccessDenied', 'current user api does not support synchronous calls');
      }
      if (typeof body.input?.prompt !== 'string') return this.error(response, 400, 'InvalidParameter', 'input.prompt is required');
      const size = body.parameters?.size ?? '1024*1024';
      if (!['1024*1024', '720*1280', '1280*720'].includes(size)) {
        return this.error(
          response,
          400,
          'InvalidParameter',
          `The size is not match the allowed size ['1024*1024', '720*1280', '1280*720']`,
        );
      }
      const id = randomUUID();
      this.tasks.set(id, { queries: 0, n: typeof body.parameters?.n === 'number' ? body.parameters.n : 1 });
      return sendJson(response, 200, { output: { task_status: 'PENDING', task_id: id }, request_id: randomUUID() });
    }
    this.error(response, 404, 'NotFound', `Not found: ${path}`);
  }

  private generate(request: RecordedRequest, body: Record<string, any>, response: ServerResponse): void {
    const messages = body.input?.messages;
    if (!Array.isArray(messages) || messages.length === 0)
      return this.error(response, 400, 'InvalidParameter', 'input.messages is required');
    const requestId = randomUUID();
    const usage = (output: number) => ({ total_tokens: this.inputTokens + output, input_tokens: this.inputTokens, output_tokens: output });
    if (request.headers['x-dashscope-sse'] !== 'enable') {
      return sendJson(response, 200, {
        output: { finish_reason: 'stop', text: this.reply },
        usage: usage(this.outputTokens),
        request_id: requestId,
      });
    }
    const incremental = body.parameters?.incremental_output === true;
    response.writeHead(200, { 'content-type': 'text/event-stream;charset=UTF-8' });
    const pieces = this.reply.split(/(?<=\s)/);
    let sofar = '';
    pieces.forEach((piece, index) => {
      sofar += piece;
      const last = index === pieces.length - 1;
      const output = last ? this.outputTokens : Math.max(1, Math.round((this.outputTokens * (index + 1)) / pieces.length));
      const data = {
        output: { finish_reason: last ? 'stop' : 'null', text: incremental ? piece : sofar },
        usage: usage(output),
        request_id: requestId,
      };
      response.write(`id:${index + 1}\nevent:result\n:HTTP_STATUS/200\ndata:${JSON.stringify(data)}\n\n`);
    });
    response.end();
  }

  private embed(body: Record<string, any>, response: ServerResponse): void {
    const texts = body.input?.texts;
    if (!Array.isArray(texts) || texts.length === 0) return this.error(response, 400, 'InvalidParameter', 'input.texts is required');
    sendJson(response, 200, {
      output: {
        embeddings: texts.map((text: string, index: number) => ({
          text_index: index,
          embedding: [0.5 * (index + 1), -0.25, text.length / 100],
        })),
      },
      usage: { total_tokens: texts.length * 2 },
      request_id: randomUUID(),
    });
  }

  private queryTask(id: string, response: ServerResponse): void {
    const task = this.tasks.get(id);
    if (!task) return sendJson(response, 200, { request_id: randomUUID(), output: { task_id: id, task_status: 'UNKNOWN' } });
    task.queries++;
    if (task.queries === 1) {
      return sendJson(response, 200, {
        request_id: randomUUID(),
        output: { task_id: id, task_status: 'RUNNING', task_metrics: { TOTAL: task.n, SUCCEEDED: 0, FAILED: 0 } },
      });
    }
    sendJson(response, 200, {
      request_id: randomUUID(),
      output: {
        task_id: id,
        task_status: 'SUCCEEDED',
        results: Array.from({ length: task.n }, (_, index) => ({ url: `${this.baseUrl}/results/${id}-${index}.png` })),
        task_metrics: { TOTAL: task.n, SUCCEEDED: task.n, FAILED: 0 },
      },
      usage: { image_count: task.n },
    });
  }
}
