import { type ExecutionContext, Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost, ModuleRef } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthenticatedUser } from '../../common/auth/auth.decorators';
import { AuthGuard } from '../../common/auth/auth.guard';
import { RelayPipelineService } from '../pipeline/relay-pipeline.service';
import { HTTP_BODY_LIMIT } from '../../common/http/server-options';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { httpMetrics } from '../../modules/metrics';
import { metricsRegistry } from '#projections/runner/metrics-registry';
import { relayCorsHook } from './relay-cors';
import { RelayFastPath } from './relay-fast-path';
import { RelayBillingService } from './relay-billing.service';
import { RelayModelsService } from './relay-models.service';
import { relayRoutesPlugin } from './relay-routes';
import { midjourneyRoutesPlugin } from '../midjourney/midjourney-routes';
import { MidjourneyQueriesService } from '../midjourney/midjourney-queries.service';
import { MidjourneySubmitService } from '../midjourney/midjourney-submit.service';
import { sunoRoutesPlugin } from '../suno/suno-routes';
import { SunoQueriesService } from '../suno/suno-queries.service';
import { SunoSubmitService } from '../suno/suno-submit.service';

/** Marks the playground route for the guard's role lookup (no metadata: UserAuth's minimum role, 1). */
class PlaygroundRoute {
  static handle(): void {}
}

/**
 * Installs the relay's Fastify plugin on the HTTP server (api role only: other roles have no HTTP adapter), and
 * the CORS hook of the relay paths at the root, so it also covers answers given before a route runs (preflights,
 * unknown relay paths).
 */
@Injectable()
export class RelayRoutesRegistrar implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly pipeline: RelayPipelineService,
    private readonly models: RelayModelsService,
    private readonly billing: RelayBillingService,
    private readonly mjSubmits: MidjourneySubmitService,
    private readonly mjQueries: MidjourneyQueriesService,
    private readonly sunoSubmits: SunoSubmitService,
    private readonly sunoQueries: SunoQueriesService,
    private readonly moduleRef: ModuleRef,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    const adapter = this.adapterHost.httpAdapter;
    if (!adapter) return;
    const fastify = adapter.getInstance<FastifyInstance>();
    // The console's own UserAuth guard, so the playground accepts exactly the sessions the console does.
    const guard = await this.moduleRef.create(AuthGuard);
    const authenticateSession = async (request: FastifyRequest): Promise<AuthenticatedUser> => {
      const context = {
        getHandler: () => PlaygroundRoute.handle,
        getClass: () => PlaygroundRoute,
        switchToHttp: () => ({ getRequest: () => request }),
      } as unknown as ExecutionContext;
      await guard.canActivate(context);
      return (request as FastifyRequest & { auth: AuthenticatedUser }).auth;
    };
    fastify.addHook('onRequest', relayCorsHook);
    void fastify.register(relayRoutesPlugin(this.pipeline, this.models, this.billing, authenticateSession));
    void fastify.register(midjourneyRoutesPlugin(this.mjSubmits, this.mjQueries));
    void fastify.register(sunoRoutesPlugin(this.sunoSubmits, this.sunoQueries));

    // The hot relay routes are served ahead of Fastify (relay-fast-path.ts); RELAY_FAST_PATH=off leaves them to the
    // Fastify routes above, which answer the same.
    if (this.config.RELAY_FAST_PATH) {
      const fastPath = new RelayFastPath({
        pipeline: this.pipeline,
        bodyLimit: HTTP_BODY_LIMIT,
        trustProxy: this.config.TRUST_PROXY,
        metrics: httpMetrics(metricsRegistry),
      });
      fastPath.install(fastify.server);
      fastify.addHook('preClose', (done) => {
        fastPath.close();
        done();
      });
    }
  }
}
