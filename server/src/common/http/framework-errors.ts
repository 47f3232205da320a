import type { FastifyReply, FastifyRequest } from 'fastify';
import { isApiPath } from '../../http-paths';
import { INVALID_PARAMS } from './errors';

/**
 * The router refuses some URLs before any route or Nest filter runs: a path that does not percent-decode
 * (FST_ERR_BAD_URL) or a path parameter beyond `maxParamLength` (FST_ERR_MAX_PARAM_LENGTH). Fastify's own answer
 * is `{error, code, message, statusCode}` with 400/414, a shape the console does not know. A console path gets
 * new-api's answer to an undecodable parameter instead (HTTP 200 `{success:false, message:"无效的参数"}`);
 * any other path the OpenAI-style error the relay and unknown paths use.
 */
export function answerFrameworkError(error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply): void {
  const path = (request.raw.url ?? request.url ?? '').split('?')[0];
  if (isApiPath(path) && !/^\/(v1|pg|mj|suno|dashboard)(\/|$)/.test(path)) {
    void reply.status(200).send({ success: false, message: INVALID_PARAMS });
    return;
  }
  void reply.status(400).send({
    error: {
      message: `Invalid URL (${request.raw.method ?? 'GET'} ${path})`,
      type: 'invalid_request_error',
      param: '',
      code: error.code ?? '',
    },
  });
}

/**
 * Longest path parameter the router accepts. Node refuses request heads over 16 KiB before Fastify sees them,
 * so this only moves the check from the router (414, Fastify's shape) to the route (its documented answer).
 */
export const MAX_PATH_PARAM_LENGTH = 16 * 1024;
