import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { TOPUP_BAD_PARAMS } from './topup.errors';

const BAD_PARAMS_BODY = JSON.stringify({ message: 'error', data: TOPUP_BAD_PARAMS });
const BODY_UNDECODABLE = Symbol('tollgate:topup-body-undecodable');
const ROUTES = new Set(['/api/user/pay', '/api/user/amount']);

type FlaggedRequest = FastifyRequest & { [BODY_UNDECODABLE]?: boolean };

function isBodyDecodeError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return (typeof code === 'string' && code.startsWith('FST_ERR_CTP_')) || error instanceof SyntaxError;
}

/**
 * POST /api/user/pay and /amount answer a body that does not decode with `{message:"error", data:"参数错误"}` (their
 * own envelope, no `success` key). Fastify refuses malformed JSON before the controller runs, so that request's
 * answer is rewritten here, on these routes only (as OptionBodyStatusHook does for PUT /api/option/).
 */
@Injectable()
export class TopUpBodyErrorsHook implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (!adapter) return;
    const fastify = adapter.getInstance<FastifyInstance>();
    fastify.addHook('onError', async (request, _reply, error) => {
      if (request.method === 'POST' && ROUTES.has(request.routeOptions?.url ?? '') && isBodyDecodeError(error)) {
        (request as FlaggedRequest)[BODY_UNDECODABLE] = true;
      }
    });
    fastify.addHook('onSend', async (request, reply, payload) => {
      if (!(request as FlaggedRequest)[BODY_UNDECODABLE]) return payload;
      reply.code(200).type('application/json; charset=utf-8');
      return BAD_PARAMS_BODY;
    });
  }
}
