import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { HttpFake, type RecordedRequest, sendJson } from '../http-fake';

/**
 * A fake Zhipu BigModel server (https://open.bigmodel.cn/dev/api): GLM-4 on `POST /api/paas/v4/chat/completions`
 * (OpenAI-like JSON and SSE, the last chunk carrying usage) and the v3 ChatGLM API on
 * `POST /api/paas/v3/model-api/{model}/invoke` (`{code, msg, success, data:{choices, usage}}`) and `/sse-invoke`
 * (`event:add` text events, then `event:finish` with a `meta:` line holding the usage).
 * Auth: `Authorization` must be a JWT (no `Bearer`) with header `{alg:HS256, sign_type:SIGN}`, claims
 * `api_key` = a known id, `exp` / `timestamp` in milliseconds, exp in the future, signed with that id's secret;
 * anything else is refused with 401 as Zhipu refuses it.
 */
export class ZhipuFake extends HttpFake {
  /** id → secret */
  keys = new Map<string, string>([['zp-id', 'zp-secret']]);
  reply = 'Hello from the fake GLM.';
  promptTokens = 13;
  completionTokens = 6;
  /** Models that answer 429 (code 1302) as Zhipu does under a concurrency limit. */
  limited = new Set<string>(['glm-limited']);

  constructor() {
    super((request, response) => this.answer(request, response));
  }

  bodies(): Array<Record<string, any>> {
    return this.requests.map((request) => JSON.parse(request.body || '{}') as Record<string, any>);
  }

  /** The reason a token is refused, or null. */
  private refuse(authorization: string | undefined): string | null {
    if (!authorization) return 'Header中未收到Authorization参数，无法进行身份验证。';
    const parts = authorization.split('.');
    if (parts.length !== 3) return '身份验证失败。';
    try {
      const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as Record<string, unknown>;
      const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Record<string, unknown>;
      if (header.alg !== 'HS256' || header.sign_type !== 'SIGN') return '身份验证失败。';
      const secret = this.keys.get(String(claims.api_key));
      if (!secret) return '身份验证失败。';
      const expected = createHmac('sha256', secret).update(`${parts[0]}.${parts[1]}`).digest();
      const given = Buffer.from(parts[2], 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return '身份验证失败。';
      // Milliseconds: a token dated in seconds would already have expired.
      if (typeof claims.exp !== 'number' || claims.exp <= Date.now()) return 'Authorization Token已过期。';
      if (typeof claims.timestamp !== 'number' || claims.timestamp > Date.now() + 60_000) return '身份验证失败。';
      return null;
    } catch {
      return '身份验证失败。';
    }
  }

  private answer(request: RecordedRequest, response: ServerResponse): void {
    const path = request.url.split('?')[0];
    const v3 = /^\/api\/paas\/v3\/model-api\/([^/]+)\/(invoke|sse-invoke)$/.exec(path);
    const refused = this.refuse(request.headers.authorization);
    if (refused) {
      if (v3) return sendJson(response, 401, { code: 1000, msg: refused, success: false });
      return sendJson(response, 401, { error: { code: '1000', message: refused } });
    }
    let body: Record<string, any>;
    try {
      body = JSON.parse(request.body) as Record<string, any>;
    } catch {
      return sendJson(response, 400, { error: { code: '1214', message: '输入不是有效的JSON' } });
    }
    if (v3) return this.answerV3(v3[2] === 'sse-invoke', body, response);
    if (request.method !== 'POST' || path !== '/api/paas/v4/chat/completions') {
      return sendJson(response, 404, { error: { code: '404', message: `Not Found: ${path}` } });
    }
    this.answerV4(body, response);
  }

  private usage() {
    return {
      prompt_tokens: this.promptTokens,
      completion_tokens: this.completionTokens,
      total_tokens: this.promptTokens + this.completionTokens,
    };
  }

  private answerV4(body: Record<string, any>, response: ServerResponse): void {
    const model = String(body.model ?? '');
    if (this.limited.has(model)) {
      return sendJson(response, 429, { error: { code: '1302', message: '您当前使用该API的并发数过高，请降低并发，或联系客服增加限额。' } });
    }
    if (!Array.isArray(body.messages) || body.messages.length === 0) {
      return sendJson(response, 400, { error: { code: '1214', message: 'messages 参数非法。请检查文档。' } });
    }
    if (typeof body.top_p === 'number' && (body.top_p <= 0 || body.top_p >= 1)) {
      return sendJson(response, 400, { error: { code: '1214', message: 'top_p 参数非法。请检查文档。' } });
    }
    const id = `8${String(this.requests.length).padStart(18, '0')}`;
    const created = Math.floor(Date.now() / 1000);
    if (body.stream !== true) {
      return sendJson(response, 200, {
        created,
        id,
        model,
        request_id: id,
        choices: [{ finish_reason: 'stop', index: 0, message: { content: this.reply, role: 'assistant' } }],
        usage: this.usage(),
      });
    }
    response.writeHead(200, { 'content-type': 'text/event-stream;charset=UTF-8' });
    const pieces = this.reply.split(/(?<=\s)/);
    for (const piece of pieces) {
      response.write(
        `data: ${JSON.stringify({ id, created, model, choices: [{ index: 0, delta: { role: 'assistant', content: piece } }] })}\n\n`,
      );
    }
    const last = {
      id,
      created,
      model,
      choices: [{ index: 0, finish_reason: 'stop', delta: { role: 'assistant', content: '' } }],
      usage: this.usage(),
    };
    response.end(`data: ${JSON.stringify(last)}\n\ndata: [DONE]\n\n`);
  }

  private answerV3(stream: boolean, body: Record<string, any>, response: ServerResponse): void {
    if (!Array.isArray(body.prompt) || body.prompt.length === 0) {
      return sendJson(response, 200, { code: 1214, msg: 'prompt 参数非法。请检查文档。', success: false });
    }
    const taskId = `7${String(this.requests.length).padStart(18, '0')}`;
    const usage = this.usage();
    if (!stream) {
      return sendJson(response, 200, {
        code: 200,
        msg: '操作成功',
        data: {
          request_id: taskId,
          task_id: taskId,
          task_status: 'SUCCESS',
          // ChatGLM v3 quotes its content, as Zhipu's API did.
          choices: [{ role: 'assistant', content: JSON.stringify(this.reply) }],
          usage,
        },
        success: true,
      });
    }
    response.writeHead(200, { 'content-type': 'text/event-stream;charset=UTF-8' });
    for (const piece of this.reply.split(/(?<=\s)/)) response.write(`event:add\nid:${taskId}\ndata:${piece}\n\n`);
    const meta = { task_status: 'SUCCESS', usage, task_id: taskId, request_id: taskId };
    response.end(`event:finish\nid:${taskId}\ndata:\nmeta:${JSON.stringify(meta)}\n\n`);
  }
}
