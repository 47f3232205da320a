import { Readable } from 'node:stream';
import { Controller, Get, Query, StreamableFile } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { AdminAuth, type AuthenticatedUser, CurrentUser, UserAuth } from '../../common/auth/auth.decorators';
import { ok } from '../../common/http/envelope';
import { parseStatementRequest, parseUserId, type StatementFilters } from './statement-query';
import type { StatementViewer } from './statement.serializer';
import { ExportStatementCsvQuery, GetStatementPageQuery } from './usecases/read-statement/read-statement.query';

/** The download's name: the user, and the range when one is given (`statement-user-7-from-1730419200.csv`). */
function csvFileName(userId: number, filters: StatementFilters): string {
  const from = filters.startTimestamp !== null ? `-from-${filters.startTimestamp}` : '';
  const to = filters.endTimestamp !== null ? `-to-${filters.endTimestamp}` : '';
  return `statement-user-${userId}${from}${to}.csv`;
}

/**
 * The statement: every change of an account's quota, one line per ledger event with the balance after it. The
 * owner reads their own (`/self`); an admin reads anyone's (`?user_id=`). `format=csv` streams the same lines.
 */
@Controller('api/statement')
export class StatementController {
  constructor(private readonly queryBus: QueryBus) {}

  @Get('self')
  @UserAuth()
  async self(@CurrentUser() user: AuthenticatedUser, @Query() query: unknown) {
    return this.answer(user.id, 'owner', query);
  }

  @Get()
  @AdminAuth()
  async ofUser(@Query() query: unknown) {
    const request = parseStatementRequest(query);
    return this.answer(parseUserId(query), 'admin', query, request);
  }

  private async answer(userId: number, viewer: StatementViewer, query: unknown, request = parseStatementRequest(query)) {
    if (request.format === 'csv') {
      const csv = await this.queryBus.execute(new ExportStatementCsvQuery(userId, viewer, request.filters));
      return new StreamableFile(Readable.from(csv), {
        type: 'text/csv; charset=utf-8',
        disposition: `attachment; filename="${csvFileName(userId, request.filters)}"`,
      });
    }
    return ok(await this.queryBus.execute(new GetStatementPageQuery(userId, viewer, request.filters, request.page, request.pageSize)));
  }
}
