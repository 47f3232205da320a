import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { AdminAuth, type AuthenticatedUser, CurrentUser, UserAuth } from '../../common/auth/auth.decorators';
import { ok } from '../../common/http/envelope';
import { userActor } from '../../ledger/event-envelope';
import {
  parseIssueRedemptions,
  parseRedeem,
  parseRedemptionEdit,
  parseRedemptionId,
  parseRedemptionPage,
  parseRedemptionStatusChange,
} from './redemption-input';
import { ChangeRedemptionCodeCommand, type RedemptionChange } from './usecases/change-redemption-code/change-redemption-code.command';
import { IssueRedemptionCodesCommand } from './usecases/issue-redemption-codes/issue-redemption-codes.command';
import { GetRedemptionQuery, ListRedemptionsQuery, SearchRedemptionsQuery } from './usecases/read-redemptions/read-redemptions.query';
import { RedeemRedemptionCodeCommand } from './usecases/redeem-redemption-code/redeem-redemption-code.command';

/** A query parameter as text: the first value when repeated, '' when absent. */
function queryText(value: unknown): string {
  const text = Array.isArray(value) ? value[0] : value;
  return typeof text === 'string' ? text : '';
}

function origin(user: AuthenticatedUser, request: FastifyRequest) {
  return { actor: userActor(user.id, user.role), correlationId: String(request.id), clientIp: request.ip ?? null };
}

/** Redemption codes (admins), with new-api's routes and answers. */
@Controller('api/redemption')
export class RedemptionsController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get('/')
  @AdminAuth()
  async list(@Query() query: Record<string, unknown>) {
    return ok(await this.queryBus.execute(new ListRedemptionsQuery(parseRedemptionPage(query))));
  }

  @Get('search')
  @AdminAuth()
  async search(@Query() query: Record<string, unknown>) {
    return ok(await this.queryBus.execute(new SearchRedemptionsQuery(queryText(query.keyword))));
  }

  @Get(':id')
  @AdminAuth()
  async get(@Param('id') id: string) {
    return ok(await this.queryBus.execute(new GetRedemptionQuery(parseRedemptionId(id))));
  }

  /** `data` = the keys issued; a batch that stopped part-way answers failure with the keys made so far. */
  @Post('/')
  @HttpCode(200)
  @AdminAuth()
  async create(@CurrentUser() user: AuthenticatedUser, @Body() body: unknown, @Req() request: FastifyRequest) {
    const fields = parseIssueRedemptions(body);
    const result = await this.commandBus.execute(new IssueRedemptionCodesCommand({ creatorId: user.id, fields, ...origin(user, request) }));
    if (result.error !== null) return { success: false, message: result.error, data: result.keys };
    return ok(result.keys);
  }

  /** Name and quota, or `?status_only=<anything non-empty>`: only the status (1 enable, 2 disable). */
  @Put('/')
  @AdminAuth()
  async update(
    @CurrentUser() user: AuthenticatedUser,
    @Body() body: unknown,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
  ) {
    let id: number;
    let change: RedemptionChange;
    if (queryText(query.status_only) !== '') {
      const parsed = parseRedemptionStatusChange(body);
      id = parsed.id;
      change = { type: 'status', status: parsed.status };
    } else {
      const parsed = parseRedemptionEdit(body);
      id = parsed.id;
      change = { type: 'edit', name: parsed.name, quota: parsed.quota };
    }
    return ok(await this.commandBus.execute(new ChangeRedemptionCodeCommand({ id, change, ...origin(user, request) })));
  }

  @Delete(':id')
  @AdminAuth()
  async delete(@CurrentUser() user: AuthenticatedUser, @Param('id') id: string, @Req() request: FastifyRequest) {
    await this.commandBus.execute(
      new ChangeRedemptionCodeCommand({ id: parseRedemptionId(id), change: { type: 'delete' }, ...origin(user, request) }),
    );
    return ok();
  }
}

/** Redeeming a code (any user): `data` = the quota added. */
@Controller('api/user')
export class RedeemController {
  constructor(private readonly commandBus: CommandBus) {}

  @Post('topup')
  @HttpCode(200)
  @UserAuth()
  async topUp(@CurrentUser() user: AuthenticatedUser, @Body() body: unknown, @Req() request: FastifyRequest) {
    const key = parseRedeem(body);
    return ok(
      await this.commandBus.execute(
        new RedeemRedemptionCodeCommand({ userId: user.id, username: user.username, key, ...origin(user, request) }),
      ),
    );
  }
}
