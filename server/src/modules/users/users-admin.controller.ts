import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AdminAuth, type AuthenticatedUser, CurrentUser } from '../../common/auth/auth.decorators';
import { SessionService } from '../../common/auth/session.service';
import { ok } from '../../common/http/envelope';
import { InvalidParamsError } from '../../common/http/errors';
import { CreateUserByAdminCommand } from './usecases/create-user-by-admin/create-user-by-admin.command';
import { DeleteUserCommand } from './usecases/delete-user/delete-user.command';
import { EditUserCommand } from './usecases/edit-user/edit-user.command';
import { GetUserQuery } from './usecases/get-user/get-user.query';
import { ListUsersQuery } from './usecases/list-users/list-users.query';
import { ManageUserCommand } from './usecases/manage-user/manage-user.command';
import { SearchUsersQuery } from './usecases/search-users/search-users.query';
import { UserNotFoundError } from './user.errors';
import { toRoleStatusUser } from './user.serializer';
import { decodeBody, isRowId, jsonInteger, jsonText, parseGoInt, queryText } from './user-input';

const createBody = z.object({ username: jsonText, password: jsonText, display_name: jsonText, role: jsonInteger });
const editBody = z.object({
  id: jsonInteger,
  username: jsonText,
  display_name: jsonText,
  password: jsonText,
  group: jsonText,
  quota: jsonInteger,
  role: jsonInteger,
  account_revision: jsonInteger,
});
const manageBody = z.object({ id: jsonInteger, action: jsonText });

/** The largest page that still fits Postgres' OFFSET arithmetic with room to spare. */
const MAX_PAGE = 100_000_000;

/** A user id from the path: not a number is "无效的参数"; a number no row can have is simply not found. */
function pathId(value: string): number {
  const id = parseGoInt(value);
  if (id === null) throw new InvalidParamsError();
  if (!isRowId(id)) throw new UserNotFoundError();
  return id;
}

function context(request: FastifyRequest) {
  return { correlationId: String(request.id), clientIp: request.ip ?? null };
}

/**
 * User management for admins: list, search, read, create, edit, manage, delete. Role rules live in the handlers;
 * where they differ from new-api's, docs/console-api.md says why.
 */
@Controller('api/user')
export class UsersAdminController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
    private readonly sessions: SessionService,
  ) {}

  @Get()
  @AdminAuth()
  async list(@Query() query: unknown) {
    // Go's Atoi then "p < 0 → 0": anything unparsable is page 0.
    const page = Math.min(Math.max(parseGoInt(queryText(query, 'p')) ?? 0, 0), MAX_PAGE);
    return ok(await this.queryBus.execute(new ListUsersQuery(page)));
  }

  @Get('search')
  @AdminAuth()
  async search(@Query() query: unknown) {
    return ok(await this.queryBus.execute(new SearchUsersQuery(queryText(query, 'keyword'), queryText(query, 'group'))));
  }

  @Get(':id')
  @AdminAuth()
  async get(@CurrentUser() caller: AuthenticatedUser, @Param('id') id: string) {
    return ok(await this.queryBus.execute(new GetUserQuery(pathId(id), caller.role)));
  }

  @Post()
  @HttpCode(200)
  @AdminAuth()
  async create(@CurrentUser() caller: AuthenticatedUser, @Body() body: unknown, @Req() request: FastifyRequest) {
    const input = decodeBody(createBody, body);
    await this.commandBus.execute(
      new CreateUserByAdminCommand({
        callerId: caller.id,
        callerRole: caller.role,
        username: input.username ?? '',
        password: input.password ?? '',
        displayName: input.display_name ?? '',
        role: input.role ?? 0,
        ...context(request),
      }),
    );
    return ok();
  }

  @Put()
  @AdminAuth()
  async edit(@CurrentUser() caller: AuthenticatedUser, @Body() body: unknown, @Req() request: FastifyRequest) {
    const input = decodeBody(editBody, body);
    if (!input.id) throw new InvalidParamsError();
    // An edit that carries no field to change is a malformed form, not a silent success.
    const edits = [input.username, input.display_name, input.group, input.password, input.quota, input.role];
    if (edits.every((value) => value === undefined)) throw new InvalidParamsError();
    if (!isRowId(input.id)) throw new UserNotFoundError();
    await this.commandBus.execute(
      new EditUserCommand({
        callerId: caller.id,
        callerRole: caller.role,
        id: input.id,
        username: input.username,
        displayName: input.display_name,
        group: input.group,
        password: input.password,
        quota: input.quota,
        role: input.role,
        accountRevision: input.account_revision,
        ...context(request),
      }),
    );
    // A password set by an admin ends the user's sessions (the caller's own stays when it edits itself).
    if (input.password) await this.sessions.endUserSessions(input.id, request);
    return ok();
  }

  @Post('manage')
  @HttpCode(200)
  @AdminAuth()
  async manage(@CurrentUser() caller: AuthenticatedUser, @Body() body: unknown) {
    const input = decodeBody(manageBody, body);
    if (!isRowId(input.id)) throw new UserNotFoundError();
    const result = await this.commandBus.execute(new ManageUserCommand(input.id, input.action ?? '', caller.role));
    return ok(toRoleStatusUser(result));
  }

  @Delete(':id')
  @AdminAuth()
  async delete(@CurrentUser() caller: AuthenticatedUser, @Param('id') id: string) {
    await this.commandBus.execute(new DeleteUserCommand(pathId(id), caller.role));
    return ok();
  }
}
