import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { type AuthenticatedUser, CurrentUser, UserAuth } from '../../common/auth/auth.decorators';
import { ok } from '../../common/http/envelope';
import { userActor } from '../../ledger/event-envelope';
import { parseCreateToken, parsePage, parseTokenEdit, parseTokenId, parseTokenStatusChange } from './token-input';
import { ChangeTokenStatusCommand } from './usecases/change-token-status/change-token-status.command';
import { CreateTokenCommand } from './usecases/create-token/create-token.command';
import { DeleteTokenCommand } from './usecases/delete-token/delete-token.command';
import { GetTokenQuery } from './usecases/get-token/get-token.query';
import { ListTokensQuery } from './usecases/list-tokens/list-tokens.query';
import { SearchTokensQuery } from './usecases/search-tokens/search-tokens.query';
import { UpdateTokenCommand } from './usecases/update-token/update-token.command';

/** A query parameter as text: the first value when repeated, '' when absent. */
function queryText(value: unknown): string {
  const text = Array.isArray(value) ? value[0] : value;
  return typeof text === 'string' ? text : '';
}

/**
 * The caller's own API tokens, with new-api's routes and answers. Every route is scoped to the caller:
 * someone else's token answers exactly like a missing one.
 */
@Controller('api/token')
export class TokensController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  @Get('/')
  @UserAuth()
  async list(@CurrentUser() user: AuthenticatedUser, @Query() query: Record<string, unknown>) {
    const { page, size } = parsePage(query);
    return ok(await this.queryBus.execute(new ListTokensQuery(user.id, page, size)));
  }

  @Get('search')
  @UserAuth()
  async search(@CurrentUser() user: AuthenticatedUser, @Query() query: Record<string, unknown>) {
    return ok(await this.queryBus.execute(new SearchTokensQuery(user.id, queryText(query.keyword), queryText(query.token))));
  }

  @Get(':id')
  @UserAuth()
  async get(@CurrentUser() user: AuthenticatedUser, @Param('id') id: string) {
    return ok(await this.queryBus.execute(new GetTokenQuery(user.id, parseTokenId(id))));
  }

  /** The answer carries no data: new-api never returns a key from create (the list shows it). */
  @Post('/')
  @HttpCode(200)
  @UserAuth()
  async create(@CurrentUser() user: AuthenticatedUser, @Body() body: unknown, @Req() request: FastifyRequest) {
    const fields = parseCreateToken(body);
    await this.commandBus.execute(
      new CreateTokenCommand({
        userId: user.id,
        fields,
        actor: userActor(user.id, user.role),
        correlationId: String(request.id),
        clientIp: request.ip ?? null,
      }),
    );
    return ok();
  }

  /** Full edit, or `?status_only=<anything non-empty>`: only the status (1 enable, 2 disable). */
  @Put('/')
  @UserAuth()
  async update(
    @CurrentUser() user: AuthenticatedUser,
    @Body() body: unknown,
    @Query() query: Record<string, unknown>,
    @Req() request: FastifyRequest,
  ) {
    if (queryText(query.status_only) !== '') {
      const change = parseTokenStatusChange(body);
      return ok(await this.commandBus.execute(new ChangeTokenStatusCommand(user.id, change.id, change.status)));
    }
    const edit = parseTokenEdit(body);
    return ok(
      await this.commandBus.execute(
        new UpdateTokenCommand({
          userId: user.id,
          edit,
          actor: userActor(user.id, user.role),
          correlationId: String(request.id),
          clientIp: request.ip ?? null,
        }),
      ),
    );
  }

  @Delete(':id')
  @UserAuth()
  async delete(@CurrentUser() user: AuthenticatedUser, @Param('id') id: string) {
    await this.commandBus.execute(new DeleteTokenCommand(user.id, parseTokenId(id)));
    return ok();
  }
}
