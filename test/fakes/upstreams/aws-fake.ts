import { createHash, createHmac } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { EventStreamCodec } from '@smithy/core/event-streams';
import { HttpFake, type RecordedRequest } from '../http-fake';

const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString('utf8'),
  (text) => new Uint8Array(Buffer.from(text, 'utf8')),
);

/** encodeURIComponent as AWS's URI encoding (RFC 3986: !'()* escaped too). */
const awsEscape = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * A fake Amazon Bedrock Runtime (InvokeModel, InvokeModelWithResponseStream) for Claude models. Every request's
 * SigV4 Authorization is verified as AWS does (canonical request, string to sign, the derived key of `secretKey`):
 * an unknown access key is 403 UnrecognizedClientException, a wrong signature 403 InvalidSignatureException. The
 * body must be a Bedrock Claude body (`anthropic_version: bedrock-2023-05-31`, no `model`); answers follow from it:
 * `reply` with `inputTokens`/`outputTokens`, a tool call when the request names a tool and `toolCall` is set; a
 * stream is the real binary event stream (`application/vnd.amazon.eventstream`, `chunk` events whose `bytes` are
 * base64 Claude stream events, the last with Bedrock's invocation metrics). `failNext` queues an AWS error.
 */
export class AwsBedrockFake extends HttpFake {
  accessKeyId = 'AKIAFAKEFAKEFAKE';
  secretKey = 'fake/secret+key';
  region = 'us-east-1';
  reply = 'Hello from the fake Bedrock Claude.';
  inputTokens = 17;
  outputTokens = 8;
  toolCall: { name: string; input: Record<string, unknown> } | null = null;
  /** Write the event stream this many bytes at a time (1: every byte boundary), else in two odd pieces. */
  streamWriteBytes: number | null = null;
  /** A stream exception sent after the first text delta (e.g. modelStreamErrorException). */
  midStreamException: string | null = null;
  private readonly failures: Array<{ status: number; type: string; message: string }> = [];

  constructor() {
    super((request, response) => this.answer(request, response));
  }

  failNext(status: number, type: string, message: string): this {
    this.failures.push({ status, type, message });
    return this;
  }

  bodies(): Array<Record<string, any>> {
    return this.requests.map((request) => JSON.parse(request.body || '{}') as Record<string, any>);
  }

  /** The model ids called, decoded from the paths. */
  modelIds(): string[] {
    return this.requests.map((request) => decodeURIComponent(request.url.split('/')[2] ?? ''));
  }

  private error(response: ServerResponse, status: number, type: string, message: string): void {
    response
      .writeHead(status, {
        'content-type': 'application/json',
        'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
        'x-amzn-requestid': 'fake-request-id',
      })
      .end(JSON.stringify({ message }));
  }

  /** Checks the SigV4 signature; answers the AWS error and returns false when it is not right. */
  private verifySignature(request: RecordedRequest, response: ServerResponse): boolean {
    const authorization = String(request.headers.authorization ?? '');
    const match =
      /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(
        authorization,
      );
    if (!match) {
      this.error(response, 403, 'IncompleteSignatureException', `Authorization header requires 'Credential' parameter.`);
      return false;
    }
    const [, accessKey, date, region, service, signedHeaders, signature] = match;
    if (accessKey !== this.accessKeyId) {
      this.error(response, 403, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
      return false;
    }
    const amzDate = String(request.headers['x-amz-date'] ?? '');
    const names = signedHeaders.split(';');
    const [path, query = ''] = request.url.split('?');
    const canonicalQuery = query.split('&').filter(Boolean).sort().join('&');
    const canonical = [
      request.method,
      awsEscape(path).replace(/%2F/g, '/'),
      canonicalQuery,
      names.map((name) => `${name}:${String(request.headers[name] ?? '').trim()}\n`).join(''),
      signedHeaders,
      String(request.headers['x-amz-content-sha256'] ?? sha256Hex(request.body)),
    ].join('\n');
    const scope = `${date}/${region}/${service}/aws4_request`;
    const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonical)].join('\n');
    const key = hmac(hmac(hmac(hmac(`AWS4${this.secretKey}`, date), region), service), 'aws4_request');
    const expected = createHmac('sha256', key).update(stringToSign).digest('hex');
    const ok =
      expected === signature && region === this.region && service === 'bedrock' && amzDate.startsWith(date) && names.includes('host');
    if (!ok) {
      this.error(
        response,
        403,
        'InvalidSignatureException',
        'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method.',
      );
    }
    return ok;
  }

  private answer(request: RecordedRequest, response: ServerResponse): void {
    const route = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/.exec(request.url.split('?')[0]);
    if (request.method !== 'POST' || !route) return this.error(response, 404, 'UnknownOperationException', 'Unknown operation');
    if (!this.verifySignature(request, response)) return;
    const failure = this.failures.shift();
    if (failure) return this.error(response, failure.status, failure.type, failure.message);
    let body: Record<string, any>;
    try {
      body = JSON.parse(request.body) as Record<string, any>;
    } catch {
      return this.error(response, 400, 'ValidationException', 'Malformed input request, please reformat your input and try again.');
    }
    if (body.anthropic_version !== 'bedrock-2023-05-31') {
      return this.error(response, 400, 'ValidationException', 'Malformed input request: anthropic_version is required');
    }
    const extraneous = Object.keys(body).filter((key) => ['model', 'stream', 'metadata'].includes(key));
    if (extraneous.length > 0) {
      return this.error(
        response,
        400,
        'ValidationException',
        `Malformed input request: extraneous key [${extraneous[0]}] is not permitted`,
      );
    }
    if (typeof body.max_tokens !== 'number' || !Array.isArray(body.messages) || body.messages[0]?.role !== 'user') {
      return this.error(response, 400, 'ValidationException', 'Malformed input request: messages and max_tokens are required');
    }
    const modelId = decodeURIComponent(route[1]);
    const useTool = this.toolCall !== null && Array.isArray(body.tools) && body.tools.length > 0;
    if (route[2] === 'invoke') return this.invoke(response, modelId, useTool);
    return this.stream(response, modelId, useTool);
  }

  private invoke(response: ServerResponse, modelId: string, useTool: boolean): void {
    const content: unknown[] = [{ type: 'text', text: this.reply }];
    if (useTool) content.push({ type: 'tool_use', id: 'toolu_bdrk_01', name: this.toolCall!.name, input: this.toolCall!.input });
    response.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': 'fake-request-id' }).end(
      JSON.stringify({
        id: `msg_bdrk_${this.requests.length}`,
        type: 'message',
        role: 'assistant',
        model: modelId.replace(/^anthropic\./, '').replace(/-v\d+:\d+$/, ''),
        content,
        stop_reason: useTool ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: this.inputTokens, output_tokens: this.outputTokens },
      }),
    );
  }

  /** Claude stream events, each in a binary `chunk` event as Bedrock sends them. */
  private stream(response: ServerResponse, modelId: string, useTool: boolean): void {
    response.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'fake-request-id' });
    const events: Array<Record<string, unknown>> = [
      {
        type: 'message_start',
        message: {
          id: `msg_bdrk_${this.requests.length}`,
          type: 'message',
          role: 'assistant',
          model: modelId,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: this.inputTokens, output_tokens: 1 },
        },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    ];
    const pieces = this.reply.split(/(?<=\s)/);
    pieces.forEach((text) => events.push({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }));
    events.push({ type: 'content_block_stop', index: 0 });
    if (useTool) {
      const args = JSON.stringify(this.toolCall!.input);
      events.push(
        {
          type: 'content_block_start',
          index: 1,
          content_block: { type: 'tool_use', id: 'toolu_bdrk_01', name: this.toolCall!.name, input: {} },
        },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: args.slice(0, 5) } },
        { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: args.slice(5) } },
        { type: 'content_block_stop', index: 1 },
      );
    }
    events.push(
      {
        type: 'message_delta',
        delta: { stop_reason: useTool ? 'tool_use' : 'end_turn', stop_sequence: null },
        usage: { output_tokens: this.outputTokens },
      },
      {
        type: 'message_stop',
        'amazon-bedrock-invocationMetrics': {
          inputTokenCount: this.inputTokens,
          outputTokenCount: this.outputTokens,
          invocationLatency: 420,
          firstByteLatency: 120,
        },
      },
    );
    const frames: Uint8Array[] = [];
    events.forEach((event, index) => {
      frames.push(chunkFrame(event));
      if (index === 2 && this.midStreamException) frames.push(exceptionFrame(this.midStreamException, 'The model stream failed.'));
    });
    const all = Buffer.concat(frames);
    if (this.streamWriteBytes) {
      // Small writes, each on its own turn of the event loop: frames (and their prelude, headers and CRCs) arrive
      // split at every offset the size allows.
      const size = this.streamWriteBytes;
      let offset = 0;
      const next = () => {
        if (offset >= all.length) return void response.end();
        response.write(all.subarray(offset, offset + size));
        offset += size;
        setImmediate(next);
      };
      return next();
    }
    // One write for all frames, then split oddly: the client must reassemble frames across reads.
    const cut = Math.floor(all.length / 3);
    response.write(all.subarray(0, cut));
    setTimeout(() => {
      response.write(all.subarray(cut));
      response.end();
    }, 5);
  }
}

function chunkFrame(event: Record<string, unknown>): Uint8Array {
  const payload = { bytes: Buffer.from(JSON.stringify(event)).toString('base64'), p: 'abcdefghijklmnopqrstuvwxyzABCDEF' };
  return codec.encode({
    headers: {
      ':event-type': { type: 'string', value: 'chunk' },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: Buffer.from(JSON.stringify(payload)),
  });
}

function exceptionFrame(type: string, message: string): Uint8Array {
  return codec.encode({
    headers: {
      ':exception-type': { type: 'string', value: type },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'exception' },
    },
    body: Buffer.from(JSON.stringify({ message, originalStatusCode: 424 })),
  });
}
