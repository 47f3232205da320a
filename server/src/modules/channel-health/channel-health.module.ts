import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PricingService } from '../pricing';
import { createUpstreamRegistry } from '../../upstreams/upstream-registry';
import { ChannelsModule } from '../channels/channels.module';
import { AccountsModule } from '../accounts/accounts.module';
import { ChannelEntity } from '../channels/channel.entity';
import { UserEntity } from '../users/user.entity';
import { CHANNEL_HEALTH_CONFIG, readChannelHealthConfig } from './channel-health.config';
import { CHANNEL_BALANCES_QUEUE, CHANNEL_OUTCOMES_QUEUE, CHANNEL_TESTS_QUEUE } from './channel-health.constants';
import { ChannelHealthController } from './channel-health.controller';
import { UPSTREAM_REGISTRY } from './channel-health.tokens';
import { HealthNotifier } from './health-notifier';
import { OutcomeWindowStore } from './outcome-window.store';
import { PeriodicChannelRuns } from './periodic-channel-runs';
import { ApplyChannelOutcomeHandler } from './usecases/apply-channel-outcome/apply-channel-outcome.handler';
import { FinishChannelTestRunHandler } from './usecases/finish-channel-test-run/finish-channel-test-run.handler';
import { StartChannelRunsHandler } from './usecases/start-channel-runs/start-channel-runs.handler';
import { TestChannelHandler } from './usecases/test-channel/test-channel.handler';
import { UpdateChannelBalanceHandler } from './usecases/update-channel-balance/update-channel-balance.handler';

/**
 * Channel workers' commands: test one or all channels, refresh balances, and the auto-disable / auto-enable
 * decisions fed by relay outcomes and tests. The queues are registered here (producers, every role); their
 * processors live in server/src/workers/ and run in the worker role only.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([ChannelEntity, UserEntity]),
    BullModule.registerQueue({ name: CHANNEL_TESTS_QUEUE }, { name: CHANNEL_BALANCES_QUEUE }, { name: CHANNEL_OUTCOMES_QUEUE }),
    AccountsModule,
    ChannelsModule,
  ],
  controllers: [ChannelHealthController],
  providers: [
    { provide: CHANNEL_HEALTH_CONFIG, useFactory: () => readChannelHealthConfig() },
    { provide: UPSTREAM_REGISTRY, useFactory: () => createUpstreamRegistry() },
    OutcomeWindowStore,
    HealthNotifier,
    PricingService,
    PeriodicChannelRuns,
    ApplyChannelOutcomeHandler,
    TestChannelHandler,
    UpdateChannelBalanceHandler,
    StartChannelRunsHandler,
    FinishChannelTestRunHandler,
  ],
  exports: [CHANNEL_HEALTH_CONFIG, BullModule],
})
export class ChannelHealthModule {}
