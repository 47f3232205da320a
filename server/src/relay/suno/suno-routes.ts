import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { relayHttpRequest } from '../http/relay-routes';
import { localTaskError, sendTaskError } from './suno-http';
import type { SunoQueriesService } from './suno-queries.service';
import type { SunoSubmitService } from './suno-submit.service';

function sunoRequest(request: FastifyRequest, response: ServerResponse, rawBody: Buffer | null) {
  return relayHttpRequest(String(request.id), request.url, request.headers, request.ip, response, rawBody);
}

const rawOf = (request: FastifyRequest): Buffer | null => (Buffer.isBuffer(request.body) ? request.body : null);

/** The Suno routes as an encapsulated Fastify plugin: bodies read as raw bytes, answers written to the socket. */
export function sunoRoutesPlugin(submits: SunoSubmitService, queries: SunoQueriesService) {
  return async (instance: FastifyInstance): Promise<void> => {
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    instance.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
      reply.hijack();
      const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 400;
      sendTaskError(reply.raw, String(request.id), localTaskError('invalid_request', error.message, status));
    });
    instance.post('/suno/submit/:action', async (request, reply) => {
      reply.hijack();
      const { action } = request.params as { action: string };
      await submits.submit(action, sunoRequest(request, reply.raw, rawOf(request)), reply.raw);
    });
    instance.post('/suno/fetch', async (request, reply) => {
      reply.hijack();
      await queries.fetchMany(sunoRequest(request, reply.raw, rawOf(request)), reply.raw);
    });
    instance.get('/suno/fetch/:id', async (request, reply) => {
      reply.hijack();
      await queries.fetchOne(sunoRequest(request, reply.raw, null), reply.raw, (request.params as { id: string }).id);
    });
  };
}
