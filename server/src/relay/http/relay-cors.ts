import type { FastifyReply, FastifyRequest } from 'fastify';

/** Paths of the relay surface (new-api's relay router, its playground, task and dashboard routes). */
const RELAY_PATH = /^\/(?:v1|pg|mj|suno|dashboard)(?:[/?]|$)|^\/[^/?]+\/mj\//;

export function isRelayPath(url: string): boolean {
  return RELAY_PATH.test(url);
}

const ALLOW_METHODS = 'GET,POST,PUT,DELETE,OPTIONS';
/** gin-contrib/cors DefaultConfig: 12 hours. */
const MAX_AGE = String(12 * 60 * 60);

/**
 * CORS on relay routes as new-api configures it (all origins, all headers,
 * GET/POST/PUT/DELETE/OPTIONS, credentials; gin-contrib/cors): nothing happens without an `Origin` header; with
 * one, answers carry `Access-Control-Allow-Origin: *` and `Access-Control-Allow-Credentials: true`, and an
 * OPTIONS preflight is answered 204 at once, before authentication (a preflight carries no credentials).
 *
 * One deliberate difference: new-api answers a preflight with `Access-Control-Allow-Headers: *`, and the
 * Fetch standard never lets that wildcard cover `Authorization`, so a browser could not send its `sk-` key at
 * all. The preflight's requested headers are echoed instead (`*` when it names none), which allows everything the
 * wildcard was meant to allow, Authorization included.
 *
 * Headers are set on the raw response so they survive routes that hijack the reply and write to the socket.
 */
export async function relayCorsHook(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const origin = request.headers.origin;
  if (!origin || !isRelayPath(request.raw.url ?? request.url)) return;
  const raw = reply.raw;
  if (request.method === 'OPTIONS') {
    const requested = request.headers['access-control-request-headers'];
    const allowHeaders = typeof requested === 'string' && requested.trim() !== '' ? requested : '*';
    reply.hijack();
    raw.writeHead(204, {
      'access-control-allow-origin': '*',
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': ALLOW_METHODS,
      'access-control-allow-headers': allowHeaders,
      'access-control-max-age': MAX_AGE,
      'x-oneapi-request-id': String(request.id),
    });
    raw.end();
    return;
  }
  raw.setHeader('access-control-allow-origin', '*');
  raw.setHeader('access-control-allow-credentials', 'true');
}
