import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { bucketsFor } from './rate-limit-policy';
import { CRITICAL_ROUTE_CONFIG } from './rate-limit.decorators';
import { RateLimiterService } from './rate-limiter.service';

/**
 * Installs the limiters as one Fastify onRequest hook: it runs for Nest routes, static files and the
 * not-found handler alike (the SPA fallback is served from there), before the body is read and before any
 * guard. Only processes that serve HTTP install it.
 */
@Injectable()
export class RateLimitHook implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly limiter: RateLimiterService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (!adapter) return; // worker or projector process: no HTTP
    const fastify = adapter.getInstance<FastifyInstance>();
    fastify.addHook('onRequest', (request, reply) => this.check(request, reply));
  }

  async check(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const path = (request.url.split('?')[0] ?? '/').replace(/\/+$/, '') || '/';
    const config = request.routeOptions?.config as unknown as Record<string, unknown> | undefined;
    const critical = config?.[CRITICAL_ROUTE_CONFIG] === true;
    for (const { bucket, rule } of bucketsFor(path, critical, this.config)) {
      if (!(await this.limiter.consume(bucket, request.ip, rule))) {
        // new-api answers a bare 429 with an empty body; the console shows its own message for it.
        // Returning the reply tells Fastify the hook answered (async hooks must not also call done()).
        return reply.code(429).send();
      }
    }
    return undefined;
  }
}
