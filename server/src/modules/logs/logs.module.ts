import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { LogsController } from './logs.controller';
import { GetLogStatHandler } from './usecases/get-log-stat/get-log-stat.handler';
import { ListLogsHandler } from './usecases/list-logs/list-logs.handler';
import { ListTokenLogsHandler } from './usecases/list-token-logs/list-token-logs.handler';
import { PurgeLogsHandler } from './usecases/purge-logs/purge-logs.handler';
import { SearchLogsHandler } from './usecases/search-logs/search-logs.handler';

/**
 * The log API (/api/log/*) over the `logs` read model (projections/src/read-models/logs, kept by the logs
 * projection; AccountsModule brings it and ReadYourWrites). Purges are LogsPurged events on the `logs` stream.
 */
@Module({
  imports: [AccountsModule],
  controllers: [LogsController],
  providers: [ListLogsHandler, ListTokenLogsHandler, GetLogStatHandler, SearchLogsHandler, PurgeLogsHandler],
})
export class LogsModule {}
