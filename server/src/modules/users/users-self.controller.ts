import { Body, Controller, Delete, Get, HttpCode, Post, Put, Req, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { type AuthenticatedUser, CurrentUser, UserAuth } from '../../common/auth/auth.decorators';
import { SessionService } from '../../common/auth/session.service';
import { ok } from '../../common/http/envelope';
import { DeleteSelfCommand } from './usecases/delete-self/delete-self.command';
import { EnsureAffCodeCommand } from './usecases/ensure-aff-code/ensure-aff-code.command';
import { GenerateAccessTokenCommand } from './usecases/generate-access-token/generate-access-token.command';
import { GetSelfQuery } from './usecases/get-self/get-self.query';
import { UpdateSelfCommand } from './usecases/update-self/update-self.command';
import { decodeBody, jsonText } from './user-input';

const updateSelfBody = z.object({ username: jsonText, display_name: jsonText, password: jsonText });

/** The caller's own account, invite code and access token; aff_transfer is in AccountsController. */
@Controller('api/user')
export class UsersSelfController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
    private readonly sessions: SessionService,
  ) {}

  @Get('self')
  @UserAuth()
  async getSelf(@CurrentUser() user: AuthenticatedUser) {
    return ok(await this.queryBus.execute(new GetSelfQuery(user.id)));
  }

  @Put('self')
  @UserAuth()
  async updateSelf(
    @CurrentUser() user: AuthenticatedUser,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const input = decodeBody(updateSelfBody, body);
    await this.commandBus.execute(
      new UpdateSelfCommand({ userId: user.id, username: input.username, displayName: input.display_name, password: input.password }),
    );
    // new-api leaves the session's username stale; a session that has one keeps it in step.
    if (input.username && !user.useAccessToken) await this.sessions.update(request, reply, { username: input.username });
    // A new password ends the account's other sessions; the one that changed it stays.
    if (input.password) await this.sessions.endUserSessions(user.id, request);
    return ok();
  }

  /** "Log out everywhere": ends every session of the caller, this one included. */
  @Post('logout_all')
  @HttpCode(200)
  @UserAuth()
  async logoutAll(@CurrentUser() user: AuthenticatedUser, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.sessions.endUserSessions(user.id);
    await this.sessions.destroy(request, reply);
    return ok();
  }

  @Delete('self')
  @UserAuth()
  async deleteSelf(
    @CurrentUser() user: AuthenticatedUser,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    await this.commandBus.execute(new DeleteSelfCommand(user.id));
    // Ended server-side too (new-api leaves it to the browser's logout).
    await this.sessions.destroy(request, reply);
    return ok();
  }

  @Get('token')
  @UserAuth()
  async generateAccessToken(@CurrentUser() user: AuthenticatedUser) {
    return ok(await this.commandBus.execute(new GenerateAccessTokenCommand(user.id)));
  }

  @Get('aff')
  @UserAuth()
  async getAffCode(@CurrentUser() user: AuthenticatedUser) {
    return ok(await this.commandBus.execute(new EnsureAffCodeCommand(user.id)));
  }
}
