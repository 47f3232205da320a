import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { LOG_RETENTION_QUEUE } from './retention/log-retention.queue';
import { LogRetentionOnOptionChange, LogRetentionScheduler } from './retention/log-retention.scheduler';
import { ApplyLogRetentionHandler } from './usecases/apply-log-retention/apply-log-retention.handler';
import { LogsController } from './logs.controller';
import { GetLogStatHandler } from './usecases/get-log-stat/get-log-stat.handler';
import { ListLogsHandler } from './usecases/list-logs/list-logs.handler';
import { ListTokenLogsHandler } from './usecases/list-token-logs/list-token-logs.handler';
import { PurgeLogsHandler } from './usecases/purge-logs/purge-logs.handler';
import { SearchLogsHandler } from './usecases/search-logs/search-logs.handler';

/**
 * The log API (/api/log/*) over the `logs` read model (projections/src/read-models/logs, kept by the logs
 * projection; AccountsModule brings it and ReadYourWrites). Purges are LogsPurged events on the `logs` stream; the
 * LogRetentionDays job (retention/, workers/log-retention.processor.ts) appends LogsRetentionApplied.
 */
@Module({
  imports: [AccountsModule, BullModule.registerQueue({ name: LOG_RETENTION_QUEUE })],
  controllers: [LogsController],
  providers: [
    ListLogsHandler,
    ListTokenLogsHandler,
    GetLogStatHandler,
    SearchLogsHandler,
    PurgeLogsHandler,
    ApplyLogRetentionHandler,
    LogRetentionScheduler,
    LogRetentionOnOptionChange,
  ],
})
export class LogsModule {}
