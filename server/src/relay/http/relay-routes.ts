import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticatedUser } from '../../common/auth/auth.decorators';
import { DomainError } from '../../common/http/errors';
import type { RelayMode } from '../../upstreams/upstream-adapter';
import { relayModeOf } from '../pipeline/relay-request';
import type { RelayHttpRequest, RelayPipelineService } from '../pipeline/relay-pipeline.service';
import { RelayError } from '../relay-error';
import { ClientGoneSignal } from './client-gone-signal';
import type { RelayBillingService } from './relay-billing.service';
import type { RelayModelsService } from './relay-models.service';

/** The relay's POST routes and their modes, as new-api routes them; `/pg/chat/completions` is below (session auth). */
export const RELAY_POST_ROUTES: ReadonlyArray<readonly [string, RelayMode]> = [
  ['/v1/chat/completions', 'chat'],
  ['/v1/completions', 'completions'],
  ['/v1/embeddings', 'embeddings'],
  ['/v1/engines/:model/embeddings', 'embeddings'],
  ['/v1/moderations', 'moderations'],
  ['/v1/images/generations', 'images-generations'],
  ['/v1/audio/speech', 'audio-speech'],
  ['/v1/audio/transcriptions', 'audio-transcriptions'],
  ['/v1/audio/translations', 'audio-translations'],
  ['/v1/rerank', 'rerank'],
];

/** Routes new-api answers 501 (it relays none of them). */
const NOT_IMPLEMENTED: ReadonlyArray<readonly ['GET' | 'POST' | 'DELETE', string]> = [
  ['POST', '/v1/images/edits'],
  ['POST', '/v1/images/variations'],
  ['POST', '/v1/edits'],
  ['GET', '/v1/files'],
  ['POST', '/v1/files'],
  ['DELETE', '/v1/files/:id'],
  ['GET', '/v1/files/:id'],
  ['GET', '/v1/files/:id/content'],
  ['POST', '/v1/fine-tunes'],
  ['GET', '/v1/fine-tunes'],
  ['GET', '/v1/fine-tunes/:id'],
  ['POST', '/v1/fine-tunes/:id/cancel'],
  ['GET', '/v1/fine-tunes/:id/events'],
  ['DELETE', '/v1/models/:model'],
];

export function splitUrl(url: string): { path: string; query: string } {
  const mark = url.indexOf('?');
  return mark < 0 ? { path: url, query: '' } : { path: url.slice(0, mark), query: url.slice(mark + 1) };
}

/**
 * The pipeline's input for one request (path without a trailing slash); `signal` aborts when the client goes away before the answer ended. Shared by
 * the Fastify routes and the fast path (relay-fast-path.ts).
 */
export function relayHttpRequest(
  requestId: string,
  url: string,
  headers: IncomingHttpHeaders,
  clientIp: string,
  response: ServerResponse,
  rawBody: Buffer | null,
  /** A signal whose caller already aborts it from a 'close' listener of its own (the fast path's, shared with its metrics). */
  ownSignal?: ClientGoneSignal,
): RelayHttpRequest {
  const split = splitUrl(url);
  // Routes ignore a trailing slash (ignoreTrailingSlash); the pipeline and the upstream get the canonical path.
  const path = split.path.length > 1 && split.path.endsWith('/') ? split.path.slice(0, -1) : split.path;
  const query = split.query;
  let signal = ownSignal;
  if (!signal) {
    const gone = new ClientGoneSignal();
    response.once('close', () => {
      if (!response.writableFinished) gone.abort();
    });
    signal = gone;
  }
  return { requestId, path, query, headers, rawBody, clientIp, signal };
}

function fromFastify(request: FastifyRequest, response: ServerResponse, rawBody: Buffer | null): RelayHttpRequest {
  return relayHttpRequest(String(request.id), request.url, request.headers, request.ip, response, rawBody);
}

/** An error of the relay, in its shape, written straight to the response (relay routes never go through onSend). */
export function sendRelayError(response: ServerResponse, requestId: string, error: RelayError): void {
  const payload = JSON.stringify(error.toBody(requestId));
  response.writeHead(error.status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(payload)),
    'x-oneapi-request-id': requestId,
  });
  response.end(payload);
}

/**
 * Registers the relay routes as an encapsulated Fastify plugin: inside it every body is read as raw bytes (the
 * pipeline parses JSON once and may forward the bytes untouched), outside it nothing changes. Handlers hijack
 * the reply and write to the socket directly, so streams go out chunk by chunk with no buffering.
 */
/**
 * The console's session check (UserAuth: session cookie + New-Api-User, or an access token) for the playground.
 * Throws the guard's DomainError, answered in the console envelope like every UserAuth refusal.
 */
export type SessionAuthenticator = (request: FastifyRequest) => Promise<AuthenticatedUser>;

function sendSessionRefusal(reply: FastifyReply, requestId: string, error: unknown): void {
  const status = error instanceof DomainError ? error.httpStatus : 500;
  const body =
    error instanceof DomainError
      ? { success: false, message: error.message }
      : { error: { message: 'Panic detected, error: internal server error', type: 'new_api_panic' } };
  const payload = JSON.stringify(body);
  reply.raw.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(payload)),
    'x-oneapi-request-id': requestId,
  });
  reply.raw.end(payload);
}

export function relayRoutesPlugin(
  pipeline: RelayPipelineService,
  models: RelayModelsService,
  billing: RelayBillingService,
  authenticateSession: SessionAuthenticator,
) {
  return async (instance: FastifyInstance): Promise<void> => {
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    instance.setErrorHandler((error: Error & { statusCode?: number; code?: string }, request, reply) => {
      const status = error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? 413 : (error.statusCode ?? 500);
      const message = status === 413 ? `无效的请求, http: request body too large` : `无效的请求, ${error.message}`;
      reply.hijack();
      sendRelayError(reply.raw, String(request.id), new RelayError(status >= 400 && status < 600 ? status : 400, message));
    });

    for (const [path, mode] of RELAY_POST_ROUTES) {
      instance.post(path, async (request, reply) => {
        reply.hijack();
        const raw = Buffer.isBuffer(request.body) ? request.body : null;
        await pipeline.handle(fromFastify(request, reply.raw, raw), reply.raw, relayModeOf(splitUrl(request.url).path) ?? mode);
      });
    }

    // The playground (new-api's Playground): session auth first, then the body (raw, like every relay route, so a
    // malformed one answers the relay's `unmarshal_request_failed` rather than the console's envelope), the
    // group from the body, the user's quota only; otherwise the chat pipeline.
    instance.post('/pg/chat/completions', async (request, reply) => {
      reply.hijack();
      let user: AuthenticatedUser;
      try {
        user = await authenticateSession(request);
      } catch (error) {
        sendSessionRefusal(reply, String(request.id), error);
        return;
      }
      const raw = Buffer.isBuffer(request.body) ? request.body : null;
      await pipeline.handle(fromFastify(request, reply.raw, raw), reply.raw, 'chat', {
        user: { id: user.id, username: user.username, group: user.group, role: user.role },
        useAccessToken: user.useAccessToken,
      });
    });

    instance.get('/v1/models', async (request, reply) => {
      reply.hijack();
      await models.list(fromFastify(request, reply.raw, null), reply.raw);
    });
    instance.get('/v1/models/:model', async (request, reply) => {
      reply.hijack();
      await models.retrieve(fromFastify(request, reply.raw, null), reply.raw, (request.params as { model: string }).model);
    });

    // The OpenAI-legacy billing emulation, with and without the /v1 prefix, as new-api serves it.
    for (const prefix of ['', '/v1']) {
      instance.get(`${prefix}/dashboard/billing/subscription`, async (request, reply) => {
        reply.hijack();
        await billing.subscription(fromFastify(request, reply.raw, null), reply.raw);
      });
      instance.get(`${prefix}/dashboard/billing/usage`, async (request, reply) => {
        reply.hijack();
        await billing.usage(fromFastify(request, reply.raw, null), reply.raw);
      });
    }

    for (const [method, path] of NOT_IMPLEMENTED) {
      instance.route({
        method,
        url: path,
        handler: async (request, reply) => {
          reply.hijack();
          await models.notImplemented(fromFastify(request, reply.raw, null), reply.raw);
        },
      });
    }
  };
}
