import { Controller, Delete, Get, Query, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AdminAuth, type AuthenticatedUser, CurrentUser, UserAuth } from '../../common/auth/auth.decorators';
import { ok } from '../../common/http/envelope';
import { userActor } from '../../ledger/event-envelope';
import { type LogScope, parseFilters, parsePaging, queryText, targetTimestamp } from './log-query';
import { GetLogStatQuery } from './usecases/get-log-stat/get-log-stat.query';
import { ListLogsQuery } from './usecases/list-logs/list-logs.query';
import { ListTokenLogsQuery } from './usecases/list-token-logs/list-token-logs.query';
import { PurgeLogsCommand } from './usecases/purge-logs/purge-logs.command';
import { SearchLogsQuery } from './usecases/search-logs/search-logs.query';

const ALL: LogScope = { kind: 'all' };
const self = (user: AuthenticatedUser): LogScope => ({ kind: 'self', userId: user.id });
const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * The log routes (lists, legacy searches, stats, purge): admin routes see every row, the `self` routes the caller's
 * own (by user id; new-api's own stat went by username, which a rename or a reused name would skew). What the
 * log routes do differently from new-api, and why: docs/console-api.md.
 */
@Controller('api/log')
export class LogsController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get()
  @AdminAuth()
  async list(@Query() query: unknown) {
    const filters = parseFilters(query, { username: true, channel: true });
    return ok(await this.queryBus.execute(new ListLogsQuery(ALL, filters, parsePaging(query, ALL))));
  }

  @Delete()
  @AdminAuth()
  async purge(@CurrentUser() caller: AuthenticatedUser, @Query() query: unknown, @Req() request: FastifyRequest) {
    const deleted = await this.commandBus.execute(
      new PurgeLogsCommand({
        targetTimestamp: targetTimestamp(queryText(query, 'target_timestamp')),
        adminId: caller.id,
        actor: userActor(caller.id, caller.role),
        correlationId: String(request.id),
        clientIp: request.ip ?? null,
      }),
    );
    return ok(deleted);
  }

  @Get('stat')
  @AdminAuth()
  async stat(@Query() query: unknown) {
    const filters = parseFilters(query, { username: true, channel: true });
    return ok(await this.queryBus.execute(new GetLogStatQuery(ALL, filters, nowSeconds())));
  }

  @Get('search')
  @AdminAuth()
  async search(@Query() query: unknown) {
    return ok(await this.queryBus.execute(new SearchLogsQuery(ALL, queryText(query, 'keyword'))));
  }

  /**
   * Public lookup by key (no session, as in new-api): answers any origin, as new-api's CORS
   * middleware did (a plain GET needs no preflight).
   */
  @Get('token')
  async listByKey(@Query() query: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    if (request.headers.origin) {
      reply.header('access-control-allow-origin', '*');
      reply.header('access-control-allow-credentials', 'true');
    }
    return ok(await this.queryBus.execute(new ListTokenLogsQuery(queryText(query, 'key'))));
  }

  @Get('self')
  @UserAuth()
  async listSelf(@CurrentUser() user: AuthenticatedUser, @Query() query: unknown) {
    const scope = self(user);
    const filters = parseFilters(query, { username: false, channel: false });
    return ok(await this.queryBus.execute(new ListLogsQuery(scope, filters, parsePaging(query, scope))));
  }

  @Get('self/stat')
  @UserAuth()
  async statSelf(@CurrentUser() user: AuthenticatedUser, @Query() query: unknown) {
    const filters = parseFilters(query, { username: false, channel: true });
    return ok(await this.queryBus.execute(new GetLogStatQuery(self(user), filters, nowSeconds())));
  }

  @Get('self/search')
  @UserAuth()
  async searchSelf(@CurrentUser() user: AuthenticatedUser, @Query() query: unknown) {
    return ok(await this.queryBus.execute(new SearchLogsQuery(self(user), queryText(query, 'keyword'))));
  }
}
