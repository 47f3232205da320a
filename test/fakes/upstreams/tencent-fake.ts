import { createHash, createHmac } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { HttpFake, type RecordedRequest, sendJson } from '../http-fake';

/**
 * A fake Tencent Hunyuan API (https://cloud.tencent.com/document/api/1729/105701): POST / with action
 * ChatCompletions, version 2023-09-01, signed with TC3-HMAC-SHA256. The signature is recomputed here from the
 * received host, content-type, action, timestamp and body with the secret of `secretId` (written out from
 * Tencent's documentation, not with the adapter's code): an unknown SecretId, a wrong signature or a timestamp
 * more than 5 minutes off is refused as Tencent refuses it, with HTTP 200 and `Response.Error`. The answer is
 * `reply` with Usage `promptTokens` / `completionTokens`; a stream is Tencent's SSE, usage in every event.
 */
export class TencentFake extends HttpFake {
  secretId = 'AKIDfake';
  secretKey = 'fake-secret';
  reply = 'Hello from the fake Hunyuan.';
  promptTokens = 8;
  completionTokens = 7;
  private readonly failures: Array<{ code: string; message: string }> = [];

  constructor() {
    super((request, response) => this.answer(request, response));
  }

  failNext(code: string, message: string): this {
    this.failures.push({ code, message });
    return this;
  }

  private answer(request: RecordedRequest, response: ServerResponse): void {
    const requestId = `req-${this.requests.length}`;
    const error = (code: string, message: string) =>
      sendJson(response, 200, { Response: { Error: { Code: code, Message: message }, RequestId: requestId } });
    if (request.method !== 'POST' || request.url !== '/') return sendJson(response, 404, { message: 'Not Found' });
    if (request.headers['x-tc-action'] !== 'ChatCompletions') return error('InvalidAction', 'The action requested does not exist.');
    if (request.headers['x-tc-version'] !== '2023-09-01') return error('NoSuchVersion', 'The API version does not exist.');
    const refusal = this.verify(request);
    if (refusal) return error(refusal[0], refusal[1]);
    const failure = this.failures.shift();
    if (failure) return error(failure.code, failure.message);
    let body: Record<string, any>;
    try {
      body = JSON.parse(request.body) as Record<string, any>;
    } catch {
      return error('InvalidParameter', 'The request body is not valid JSON.');
    }
    if (typeof body.Model !== 'string' || !Array.isArray(body.Messages) || body.Messages.length === 0)
      return error('MissingParameter', 'The request is missing a required parameter `Messages`.');
    const id = `hy-${this.requests.length}`;
    const created = Math.floor(Date.now() / 1000);
    const usage = (completion: number) => ({
      PromptTokens: this.promptTokens,
      CompletionTokens: completion,
      TotalTokens: this.promptTokens + completion,
    });
    const note = '以上内容为AI生成，不代表开发者立场，请勿删除或修改本标记';
    if (body.Stream !== true) {
      return sendJson(response, 200, {
        Response: {
          RequestId: requestId,
          Note: note,
          Choices: [{ Message: { Role: 'assistant', Content: this.reply }, FinishReason: 'stop' }],
          Created: created,
          Id: id,
          Usage: usage(this.completionTokens),
        },
      });
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const pieces = this.reply.split(/(?<=\s)/);
    pieces.forEach((piece, index) => {
      const event = {
        Note: note,
        Choices: [{ Delta: { Role: 'assistant', Content: piece }, FinishReason: '' }],
        Created: created,
        Id: id,
        Usage: usage(index + 1),
      };
      response.write(`data: ${JSON.stringify(event)}\n\n`);
    });
    const last = {
      Note: note,
      Choices: [{ Delta: { Role: 'assistant', Content: '' }, FinishReason: 'stop' }],
      Created: created,
      Id: id,
      Usage: usage(this.completionTokens),
    };
    response.end(`data: ${JSON.stringify(last)}\n\n`);
  }

  /** null when the request is signed with `secretKey`, else Tencent's error code and message. */
  private verify(request: RecordedRequest): [string, string] | null {
    const match =
      /^TC3-HMAC-SHA256 Credential=([^/]+)\/(\d{4}-\d{2}-\d{2})\/hunyuan\/tc3_request, SignedHeaders=content-type;host;x-tc-action, Signature=([0-9a-f]{64})$/.exec(
        String(request.headers.authorization ?? ''),
      );
    if (!match) return ['AuthFailure.InvalidAuthorization', 'Authorization header is malformed.'];
    const [, secretId, date, signature] = match;
    if (secretId !== this.secretId)
      return ['AuthFailure.SecretIdNotFound', 'The SecretId is not found, please ensure that your SecretId is correct.'];
    const timestamp = Number(request.headers['x-tc-timestamp']);
    if (!Number.isInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > 300)
      return ['AuthFailure.SignatureExpire', 'Signature expired.'];
    const sha = (value: string) => createHash('sha256').update(value).digest('hex');
    const canonical = [
      'POST',
      '/',
      '',
      `content-type:${request.headers['content-type']}`,
      `host:${request.headers.host}`,
      `x-tc-action:${String(request.headers['x-tc-action']).toLowerCase()}`,
      '',
      'content-type;host;x-tc-action',
      sha(request.body),
    ].join('\n');
    const stringToSign = `TC3-HMAC-SHA256\n${timestamp}\n${date}/hunyuan/tc3_request\n${sha(canonical)}`;
    let key = createHmac('sha256', `TC3${this.secretKey}`).update(date).digest();
    key = createHmac('sha256', key).update('hunyuan').digest();
    key = createHmac('sha256', key).update('tc3_request').digest();
    const expected = createHmac('sha256', key).update(stringToSign).digest('hex');
    if (expected !== signature)
      return ['AuthFailure.SignatureFailure', 'The provided credentials could not be validated. Please check your signature is correct.'];
    return null;
  }
}
