import { createVerify, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { HttpFake, type RecordedRequest, sendJson } from '../http-fake';

const TOKEN_AUDIENCE = 'https://oauth2.googleapis.com/token';

/**
 * A fake Vertex AI with Google's OAuth token endpoint. `POST /token` takes the service-account JWT grant and checks
 * it as Google does (RS256 signature against the account's public key, iss, aud, scope, at most one hour): a bad
 * one is 400 invalid_grant. Model calls need a Bearer token it issued (else 401 UNAUTHENTICATED) and answer, by
 * route: Anthropic's publisher (`rawPredict`, `streamRawPredict`: Claude Messages, `anthropic_version:
 * vertex-2023-10-16`, no `model`), Google's (`generateContent`, `streamGenerateContent?alt=sse`: Gemini), and the
 * OpenAI-compatible endpoint (`endpoints/openapi/chat/completions`). `failNext` queues a Google error.
 */
export class VertexFake extends HttpFake {
  readonly project = 'tollgate-test';
  readonly clientEmail = 'relay@tollgate-test.iam.gserviceaccount.com';
  private readonly keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  /** A key pair Google does not know: its JWTs fail the signature check. */
  private readonly strangerKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  reply = 'Hello from the fake Vertex.';
  inputTokens = 14;
  outputTokens = 6;
  /** Seconds the issued tokens live. */
  expiresIn = 3599;
  readonly issued = new Set<string>();
  private readonly failures: Array<{ status: number; grpcStatus: string; message: string }> = [];

  constructor() {
    super((request, response) => this.answer(request, response));
  }

  /** The service-account JSON key of the channel; `stranger` signs with a key Google does not know. */
  serviceAccountKey(stranger = false): string {
    const keys = stranger ? this.strangerKeys : this.keys;
    return JSON.stringify({
      type: 'service_account',
      project_id: this.project,
      private_key_id: 'abc123',
      private_key: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      client_email: this.clientEmail,
      client_id: '1234567890',
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      token_uri: TOKEN_AUDIENCE,
    });
  }

  failNext(status: number, grpcStatus: string, message: string): this {
    this.failures.push({ status, grpcStatus, message });
    return this;
  }

  tokenRequests(): RecordedRequest[] {
    return this.requests.filter((request) => request.url === '/token');
  }

  modelRequests(): RecordedRequest[] {
    return this.requests.filter((request) => request.url !== '/token');
  }

  private googleError(response: ServerResponse, status: number, grpcStatus: string, message: string): void {
    sendJson(response, status, { error: { code: status, message, status: grpcStatus } });
  }

  private token(request: RecordedRequest, response: ServerResponse): void {
    const form = new URLSearchParams(request.body);
    const invalid = (description: string) => sendJson(response, 400, { error: 'invalid_grant', error_description: description });
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      return sendJson(response, 400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type' });
    }
    const [header, claims, signature] = (form.get('assertion') ?? '').split('.');
    if (!header || !claims || !signature) return invalid('Invalid JWT: Token must be a short-lived token and in a reasonable timeframe');
    const verified = createVerify('RSA-SHA256')
      .update(`${header}.${claims}`)
      .verify(this.keys.publicKey, Buffer.from(signature, 'base64url'));
    if (!verified) return invalid('Invalid JWT Signature.');
    const head = JSON.parse(Buffer.from(header, 'base64url').toString()) as Record<string, unknown>;
    const body = JSON.parse(Buffer.from(claims, 'base64url').toString()) as Record<string, any>;
    const now = Math.floor(Date.now() / 1000);
    if (head.alg !== 'RS256') return invalid('Invalid JWT: alg must be RS256');
    if (body.iss !== this.clientEmail)
      return sendJson(response, 401, { error: 'invalid_client', error_description: 'The OAuth client was not found.' });
    if (body.aud !== TOKEN_AUDIENCE) return invalid('Invalid JWT: Failed audience check.');
    if (body.scope !== 'https://www.googleapis.com/auth/cloud-platform') return invalid('Invalid JWT: scope');
    if (typeof body.iat !== 'number' || typeof body.exp !== 'number' || body.exp - body.iat > 3600 || Math.abs(body.iat - now) > 300) {
      return invalid('Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.');
    }
    const token = `ya29.fake-${randomBytes(12).toString('hex')}`;
    this.issued.add(token);
    sendJson(response, 200, { access_token: token, expires_in: this.expiresIn, token_type: 'Bearer' });
  }

  private answer(request: RecordedRequest, response: ServerResponse): void {
    if (request.method === 'POST' && request.url === '/token') return this.token(request, response);
    const auth = String(request.headers.authorization ?? '');
    if (!auth.startsWith('Bearer ') || !this.issued.has(auth.slice(7))) {
      return this.googleError(
        response,
        401,
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      );
    }
    const location = `/projects/${this.project}/locations/([a-z0-9-]+)`;
    const [path] = request.url.split('?');
    const publisher = new RegExp(
      `^/v1${location}/publishers/(anthropic|google)/models/([^/:]+):(rawPredict|streamRawPredict|generateContent|streamGenerateContent)$`,
    ).exec(path);
    const openapi = new RegExp(`^/v1beta1${location}/endpoints/openapi/chat/completions$`).exec(path);
    if (request.method !== 'POST' || (!publisher && !openapi)) return this.googleError(response, 404, 'NOT_FOUND', `Not found: ${path}`);
    const failure = this.failures.shift();
    if (failure) return this.googleError(response, failure.status, failure.grpcStatus, failure.message);
    const body = JSON.parse(request.body || '{}') as Record<string, any>;
    if (openapi) return this.openai(response, body);
    const [, , owner, model, action] = publisher!;
    if (owner === 'anthropic') {
      if (body.anthropic_version !== 'vertex-2023-10-16' || 'model' in body) {
        return this.googleError(
          response,
          400,
          'INVALID_ARGUMENT',
          'anthropic_version: vertex-2023-10-16 is required and model is not allowed',
        );
      }
      if (action !== 'rawPredict' && action !== 'streamRawPredict')
        return this.googleError(response, 400, 'INVALID_ARGUMENT', 'Use rawPredict');
      return this.claude(response, decodeURIComponent(model), action === 'streamRawPredict');
    }
    if (action !== 'generateContent' && action !== 'streamGenerateContent')
      return this.googleError(response, 400, 'INVALID_ARGUMENT', 'Use generateContent');
    if (!Array.isArray(body.contents) || body.contents.length === 0)
      return this.googleError(response, 400, 'INVALID_ARGUMENT', 'contents is not specified');
    return this.gemini(response, decodeURIComponent(model), action === 'streamGenerateContent');
  }

  private claude(response: ServerResponse, model: string, stream: boolean): void {
    const usage = { input_tokens: this.inputTokens, output_tokens: this.outputTokens };
    if (!stream) {
      return sendJson(response, 200, {
        id: 'msg_vrtx_01',
        type: 'message',
        role: 'assistant',
        model,
        content: [{ type: 'text', text: this.reply }],
        stop_reason: 'end_turn',
        stop_sequence: null,
        usage,
      });
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (event: string, data: unknown) => response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    send('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_vrtx_02',
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        usage: { input_tokens: this.inputTokens, output_tokens: 1 },
      },
    });
    send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    for (const text of this.reply.split(/(?<=\s)/))
      send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
    send('content_block_stop', { type: 'content_block_stop', index: 0 });
    send('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: this.outputTokens },
    });
    send('message_stop', { type: 'message_stop' });
    response.end();
  }

  private gemini(response: ServerResponse, model: string, stream: boolean): void {
    const full = {
      promptTokenCount: this.inputTokens,
      candidatesTokenCount: this.outputTokens,
      totalTokenCount: this.inputTokens + this.outputTokens,
    };
    const event = (text: string, last: boolean) => ({
      candidates: [{ content: { role: 'model', parts: [{ text }] }, ...(last ? { finishReason: 'STOP' } : {}) }],
      usageMetadata: last ? full : { promptTokenCount: this.inputTokens, totalTokenCount: this.inputTokens },
      modelVersion: model,
    });
    if (!stream) return sendJson(response, 200, event(this.reply, true));
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const pieces = this.reply.split(/(?<=\s)/);
    pieces.forEach((piece, index) => response.write(`data: ${JSON.stringify(event(piece, index === pieces.length - 1))}\r\n\r\n`));
    response.end();
  }

  private openai(response: ServerResponse, body: Record<string, any>): void {
    const usage = {
      prompt_tokens: this.inputTokens,
      completion_tokens: this.outputTokens,
      total_tokens: this.inputTokens + this.outputTokens,
    };
    if (body.stream !== true) {
      return sendJson(response, 200, {
        id: 'chatcmpl-vrtx',
        object: 'chat.completion',
        created: 1_700_000_000,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: this.reply }, finish_reason: 'stop' }],
        usage,
      });
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-vrtx', object: 'chat.completion.chunk', created: 1_700_000_000, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    response.write(chunk({ role: 'assistant', content: '' }, null));
    for (const piece of this.reply.split(/(?<=\s)/)) response.write(chunk({ content: piece }, null));
    response.write(chunk({}, 'stop'));
    response.end('data: [DONE]\n\n');
  }
}
