import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { relayHttpRequest, sendRelayError } from '../http/relay-routes';
import { RelayError } from '../relay-error';
import type { MjSubmitKind } from './midjourney-actions';
import type { MidjourneyQueriesService } from './midjourney-queries.service';
import type { MidjourneySubmitService } from './midjourney-submit.service';

/** The submit routes and what each submits (the Plus ones included: the proxy decides what it supports). */
export const MJ_SUBMIT_ROUTES: ReadonlyArray<readonly [string, MjSubmitKind]> = [
  ['/mj/submit/imagine', 'imagine'],
  ['/mj/submit/describe', 'describe'],
  ['/mj/submit/blend', 'blend'],
  ['/mj/submit/change', 'change'],
  ['/mj/submit/simple-change', 'simple-change'],
  ['/mj/submit/action', 'action'],
  ['/mj/submit/modal', 'modal'],
  ['/mj/submit/shorten', 'shorten'],
  ['/mj/submit/upload-discord-images', 'upload'],
  ['/mj/insight-face/swap', 'swap_face'],
];

/** `/mj/...` and the same under any mode prefix (`/mj-fast/mj/...`, `/mj-relax/mj/...`), as new-api routes them. */
export const MJ_PREFIXES = ['', '/:mode'] as const;

function mjRequest(request: FastifyRequest, response: ServerResponse, rawBody: Buffer | null) {
  return relayHttpRequest(String(request.id), request.url, request.headers, request.ip, response, rawBody);
}

const rawOf = (request: FastifyRequest): Buffer | null => (Buffer.isBuffer(request.body) ? request.body : null);
const idOf = (request: FastifyRequest): string => (request.params as { id: string }).id;

/** The Midjourney routes as an encapsulated Fastify plugin: bodies read as raw bytes, answers written to the socket. */
export function midjourneyRoutesPlugin(submits: MidjourneySubmitService, queries: MidjourneyQueriesService) {
  return async (instance: FastifyInstance): Promise<void> => {
    instance.removeAllContentTypeParsers();
    instance.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    instance.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
      reply.hijack();
      const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 400;
      sendRelayError(reply.raw, String(request.id), new RelayError(status, `无效的请求, ${error.message}`));
    });
    for (const prefix of MJ_PREFIXES) {
      for (const [path, kind] of MJ_SUBMIT_ROUTES) {
        instance.post(`${prefix}${path}`, async (request, reply) => {
          reply.hijack();
          await submits.submit(kind, mjRequest(request, reply.raw, rawOf(request)), reply.raw);
        });
      }
      instance.post(`${prefix}/mj/notify`, async (request, reply) => {
        reply.hijack();
        await queries.notify(mjRequest(request, reply.raw, rawOf(request)), reply.raw);
      });
      instance.get(`${prefix}/mj/task/:id/fetch`, async (request, reply) => {
        reply.hijack();
        await queries.fetch(mjRequest(request, reply.raw, null), reply.raw, idOf(request));
      });
      instance.post(`${prefix}/mj/task/list-by-condition`, async (request, reply) => {
        reply.hijack();
        await queries.listByCondition(mjRequest(request, reply.raw, rawOf(request)), reply.raw);
      });
      instance.get(`${prefix}/mj/task/:id/image-seed`, async (request, reply) => {
        reply.hijack();
        await queries.imageSeed(mjRequest(request, reply.raw, null), reply.raw, idOf(request));
      });
      instance.get(`${prefix}/mj/image/:id`, async (request, reply) => {
        reply.hijack();
        await queries.image(mjRequest(request, reply.raw, null), reply.raw, idOf(request));
      });
    }
  };
}
