import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { PricingModule } from '../pricing';
import { createUpstreamRegistry } from '../../upstreams/upstream-registry';
import { ChannelsModule } from '../channels/channels.module';
import { AccountsModule } from '../accounts/accounts.module';
import { ChannelEntity } from '../channels/channel.entity';
import { UserEntity } from '../users/user.entity';
import { ChannelHealthController } from './channel-health.controller';
import { CHANNEL_HEALTH_CONFIG, channelHealthConfig } from './config/channel-health.config';
import { UPSTREAM_REGISTRY } from './config/channel-health.tokens';
import { HealthNotifier } from './notify/health-notifier';
import { ChannelOutcomesModule } from './outcome/channel-outcomes.module';
import { OutcomeWindowStore } from './outcome/outcome-window.store';
import { CHANNEL_BALANCES_QUEUE, CHANNEL_TESTS_QUEUE } from './runs/channel-run-queues';
import { PeriodicChannelRuns } from './runs/periodic-channel-runs';
import { ApplyChannelOutcomeHandler } from './usecases/apply-channel-outcome/apply-channel-outcome.handler';
import { FinishChannelTestRunHandler } from './usecases/finish-channel-test-run/finish-channel-test-run.handler';
import { StartChannelRunsHandler } from './usecases/start-channel-runs/start-channel-runs.handler';
import { TestChannelHandler } from './usecases/test-channel/test-channel.handler';
import { UpdateChannelBalanceHandler } from './usecases/update-channel-balance/update-channel-balance.handler';

/**
 * Channel workers' commands: test one or all channels, refresh balances, and the auto-disable / auto-enable
 * decisions fed by relay outcomes and tests. The queues are registered here and in ChannelOutcomesModule (producers,
 * every role); their processors live in server/src/workers/ and run in the worker role only.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([ChannelEntity, UserEntity]),
    BullModule.registerQueue({ name: CHANNEL_TESTS_QUEUE }, { name: CHANNEL_BALANCES_QUEUE }),
    ChannelOutcomesModule,
    AccountsModule,
    ChannelsModule,
    PricingModule,
  ],
  controllers: [ChannelHealthController],
  providers: [
    { provide: CHANNEL_HEALTH_CONFIG, useFactory: (config: AppConfig) => channelHealthConfig(config), inject: [APP_CONFIG] },
    {
      provide: UPSTREAM_REGISTRY,
      useFactory: (config: AppConfig) => createUpstreamRegistry({ geminiSafetyThreshold: config.GEMINI_SAFETY_SETTING }),
      inject: [APP_CONFIG],
    },
    OutcomeWindowStore,
    HealthNotifier,
    PeriodicChannelRuns,
    ApplyChannelOutcomeHandler,
    TestChannelHandler,
    UpdateChannelBalanceHandler,
    StartChannelRunsHandler,
    FinishChannelTestRunHandler,
  ],
  exports: [CHANNEL_HEALTH_CONFIG, BullModule, ChannelOutcomesModule],
})
export class ChannelHealthModule {}
