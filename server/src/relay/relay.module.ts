import { BullModule } from '@nestjs/bullmq';
import { type DynamicModule, Module } from '@nestjs/common';
import { AccountBalancesReadModelModule } from '#projections/read-models/account-balances/account-balances-read-model.module';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { ChannelOutcomeReporter, ChannelOutcomesModule } from '../modules/channel-health';
import { ChannelRouter, ChannelsModule } from '../modules/channels';
import { PricingModule } from '../modules/pricing';
import { TasksModule } from '../modules/tasks';
import { TokenAuthenticator, TokensModule } from '../modules/tokens';
import { QuotaAdmissionService } from './admission/quota-admission.service';
import { RelayBillingService } from './http/relay-billing.service';
import { RelayModelsService } from './http/relay-models.service';
import { RelayRoutesRegistrar } from './http/relay-routes.registrar';
import { LeaseSweeper } from './leases/lease-sweeper';
import { RelayPipelineService } from './pipeline/relay-pipeline.service';
import { RELAY_AUTHENTICATOR, RELAY_CHANNEL_ROUTER, RELAY_OUTCOME_REPORTER } from './relay-ports';
import { RelaySettlementService } from './settlement/relay-settlement.service';
import { UpstreamHttpClient } from './upstream-client/upstream-http-client';
import { MJ_POLL_QUEUE } from './midjourney/midjourney-poll.queue';
import { MidjourneyPollScheduler } from './midjourney/midjourney-poll.scheduler';
import { MidjourneyPoller } from './midjourney/midjourney-poller';
import { MidjourneyQueriesService } from './midjourney/midjourney-queries.service';
import { MidjourneySubmitService } from './midjourney/midjourney-submit.service';
import { SUNO_POLL_QUEUE } from './suno/suno-poll.queue';
import { SunoPollScheduler } from './suno/suno-poll.scheduler';
import { SunoPoller } from './suno/suno-poller';
import { SunoQueriesService } from './suno/suno-queries.service';
import { SunoSubmitService } from './suno/suno-submit.service';

/**
 * The relay (/v1/*, /pg/chat/completions): token auth, admission, channel selection, upstream call, settlement.
 * Routes are a Fastify plugin installed by RelayRoutesRegistrar (raw bytes in, raw socket writes out); the
 * playground is one of them, checked by the console's own session guard. The worker role sweeps expired leases.
 */
@Module({})
export class RelayModule {
  static forRoot(options: { sweepLeases: boolean }): DynamicModule {
    return {
      module: RelayModule,
      imports: [
        TokensModule,
        ChannelsModule,
        ChannelOutcomesModule,
        AccountBalancesReadModelModule,
        PricingModule,
        TasksModule,
        BullModule.registerQueue({ name: MJ_POLL_QUEUE }),
        BullModule.registerQueue({ name: SUNO_POLL_QUEUE }),
      ],
      providers: [
        { provide: RELAY_AUTHENTICATOR, useExisting: TokenAuthenticator },
        { provide: RELAY_CHANNEL_ROUTER, useExisting: ChannelRouter },
        { provide: RELAY_OUTCOME_REPORTER, useExisting: ChannelOutcomeReporter },
        UpstreamHttpClient,
        RelaySettlementService,
        RelayPipelineService,
        RelayModelsService,
        RelayBillingService,
        RelayRoutesRegistrar,
        MidjourneySubmitService,
        MidjourneyQueriesService,
        MidjourneyPoller,
        MidjourneyPollScheduler,
        SunoSubmitService,
        SunoQueriesService,
        SunoPoller,
        SunoPollScheduler,
        {
          provide: LeaseSweeper,
          useFactory: (admission: QuotaAdmissionService, settlement: RelaySettlementService, config: AppConfig) =>
            new LeaseSweeper(admission, options.sweepLeases, config.RELAY_LEASE_SWEEP_MS, settlement),
          inject: [QuotaAdmissionService, RelaySettlementService, APP_CONFIG],
        },
      ],
      exports: [RelayPipelineService, RelaySettlementService, PricingModule, LeaseSweeper, MidjourneyPoller, SunoPoller],
    };
  }
}
