import { BullModule } from '@nestjs/bullmq';
import { type DynamicModule, Module } from '@nestjs/common';
import { CqrsModule } from '@nestjs/cqrs';
import { AuthCoreModule } from './modules/auth/auth-core.module';
import type { AppConfig } from './config/app-config';
import { InfrastructureModule } from './infrastructure/infrastructure.module';
import { bullRetryDelay } from './infrastructure/redis/redis.constants';
import { AuthModule } from './modules/auth/auth.module';
import { RateLimitModule } from './common/rate-limit/rate-limit.module';
import { GroupsModule } from './modules/groups/groups.module';
import { MetricsModule } from './modules/metrics/metrics.module';
import { OptionsCoreModule } from './modules/options/options-core.module';
import { OptionsModule } from './modules/options/options.module';
import { StatusModule } from './modules/status/status.module';
import { WorkersModule } from './workers/workers.module';
import { LedgerModule } from './ledger/ledger.module';
import { ProjectionsModule } from '#projections/runner/projections.module';
import { AccountsModule } from './modules/accounts/accounts.module';
import { UsersModule } from './modules/users/users.module';
import { ChannelsModule } from './modules/channels/channels.module';
import { AdmissionModule } from './relay/admission/admission.module';
import { RelayModule } from './relay/relay.module';
import { LogsModule } from './modules/logs/logs.module';
import { TokensModule } from './modules/tokens/tokens.module';
import { ChannelHealthModule } from './modules/channel-health/channel-health.module';
import { RedemptionsModule } from './modules/redemptions/redemptions.module';
import { PricingApiModule } from './modules/pricing/pricing-api.module';
import { DataDashboardModule } from './modules/data-dashboard/data-dashboard.module';
import { StatementModule } from './modules/statement/statement.module';
import { TopUpsModule } from './modules/topups/topups.module';
import { TasksModule } from './modules/tasks/tasks.module';
import { QuotaReminderModule } from './modules/quota-reminder/quota-reminder.module';
import { LedgerArchiveModule } from './modules/ledger-archive/ledger-archive.module';

/**
 * The whole product in one module tree. Roles decide what runs, not what is wired: every role can execute
 * every command; `api` listens for HTTP (main.ts), `worker` consumes queues, `projector` runs projections.
 */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        InfrastructureModule.forRoot(config),
        CqrsModule.forRoot(),
        BullModule.forRoot({
          connection: { url: config.REDIS_URL, maxRetriesPerRequest: null, retryStrategy: bullRetryDelay },
          prefix: `${config.REDIS_PREFIX}:bull`,
        }),
        LedgerModule,
        AdmissionModule,
        ProjectionsModule.forRoot({ run: config.roles.includes('projector') }),
        OptionsCoreModule,
        AuthCoreModule,
        // Feature modules (one line each):
        AccountsModule,
        UsersModule,
        LogsModule,
        TokensModule,
        ChannelHealthModule,
        AuthModule,
        RateLimitModule,
        OptionsModule,
        StatusModule,
        GroupsModule,
        MetricsModule,
        ChannelsModule,
        RedemptionsModule,
        PricingApiModule,
        DataDashboardModule,
        StatementModule,
        TopUpsModule,
        QuotaReminderModule,
        LedgerArchiveModule,
        TasksModule,
        RelayModule.forRoot({ sweepLeases: config.roles.includes('worker') }),
        WorkersModule.forRoot(config.roles.includes('worker')),
      ],
    };
  }
}
