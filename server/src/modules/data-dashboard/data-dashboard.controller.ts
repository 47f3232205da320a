import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { AdminAuth, type AuthenticatedUser, CurrentUser, UserAuth } from '../../common/auth/auth.decorators';
import { ok } from '../../common/http/envelope';
import { queryText } from '../logs/log-query';
import { parseRange, parseSelfRange } from './dashboard-query';
import { ListQuotaDataQuery } from './usecases/list-quota-data/list-quota-data.query';

/** The data dashboard over the hourly `quota_data` rows; the console regroups by day or week itself. */
@Controller('api/data')
export class DataDashboardController {
  constructor(private readonly queryBus: QueryBus) {}

  /** Every user's rows summed per model and hour, or one username's rows (no span limit for admins). */
  @Get()
  @AdminAuth()
  async list(@Query() query: unknown) {
    const username = queryText(query, 'username');
    const scope = username ? { kind: 'username' as const, username } : { kind: 'all' as const };
    return ok(await this.queryBus.execute(new ListQuotaDataQuery(scope, parseRange(query))));
  }

  @Get('self')
  @UserAuth()
  async listSelf(@CurrentUser() user: AuthenticatedUser, @Query() query: unknown) {
    return ok(await this.queryBus.execute(new ListQuotaDataQuery({ kind: 'user', userId: user.id }, parseSelfRange(query))));
  }
}
