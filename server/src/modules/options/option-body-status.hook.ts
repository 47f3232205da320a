import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { INVALID_PARAMS } from '../../common/http/errors';

const INVALID_PARAMS_BODY = JSON.stringify({ success: false, message: INVALID_PARAMS });
const BODY_UNDECODABLE = Symbol('tollgate:body-undecodable');

type FlaggedRequest = FastifyRequest & { [BODY_UNDECODABLE]?: boolean };

/** Fastify's content-type parser errors (malformed JSON, empty JSON body, wrong content type, too large). */
function isBodyDecodeError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return (typeof code === 'string' && code.startsWith('FST_ERR_CTP_')) || error instanceof SyntaxError;
}

/**
 * new-api answers an undecodable PUT /api/option/ body with HTTP 400 "无效的参数" (not the usual HTTP 200
 * envelope). Fastify rejects malformed JSON before any guard or controller runs, so the answer is corrected here,
 * on this route only: onError sees the parser's error (Nest later turns it into a generic HttpException),
 * onSend rewrites that request's answer. Bodies that parse but have the wrong shape get their 400 from the
 * controller.
 */
@Injectable()
export class OptionBodyStatusHook implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (!adapter) return;
    const fastify = adapter.getInstance<FastifyInstance>();
    fastify.addHook('onError', async (request, _reply, error) => {
      if (isOptionUpdate(request) && isBodyDecodeError(error)) (request as FlaggedRequest)[BODY_UNDECODABLE] = true;
    });
    fastify.addHook('onSend', async (request, reply, payload) => {
      if (!(request as FlaggedRequest)[BODY_UNDECODABLE]) return payload;
      reply.code(400).type('application/json; charset=utf-8');
      return INVALID_PARAMS_BODY;
    });
  }
}

function isOptionUpdate(request: FastifyRequest): boolean {
  return request.method === 'PUT' && request.routeOptions?.url === '/api/option';
}
