import { randomInt } from 'node:crypto';
import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type AuthenticatedUser, CurrentUser, UserAuth } from '../../common/auth/auth.decorators';
import { SessionService } from '../../common/auth/session.service';
import { ok } from '../../common/http/envelope';
import { CriticalRateLimit } from '../../common/rate-limit/rate-limit.decorators';
import type { UserEntity } from '../users/user.entity';
import { AuthError } from './auth.errors';
import { toLoginUser } from '../users/user.serializer';
import { queryParam, requestContext } from './request-input';
import { BindGitHubCommand } from './usecases/bind-github/bind-github.command';
import { BindTelegramCommand } from './usecases/bind-telegram/bind-telegram.command';
import { BindWeChatCommand } from './usecases/bind-wechat/bind-wechat.command';
import { LoginWithGitHubCommand } from './usecases/login-with-github/login-with-github.command';
import { LoginWithTelegramCommand } from './usecases/login-with-telegram/login-with-telegram.command';
import { LoginWithWeChatCommand } from './usecases/login-with-wechat/login-with-wechat.command';

const STATE_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** Third-party login and binding: GitHub, WeChat, Telegram. */
@Controller('api/oauth')
export class OAuthController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly sessions: SessionService,
  ) {}

  /** A fresh OAuth state for the GitHub redirect, remembered in the session. */
  @Get('state')
  @CriticalRateLimit()
  async state(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const state = Array.from({ length: 12 }, () => STATE_ALPHABET[randomInt(STATE_ALPHABET.length)]).join('');
    await this.sessions.update(request, reply, { oauthState: state });
    return ok(state);
  }

  /** Login, sign-up, or (with a logged-in session) binding: the answer's message "bind" tells them apart. */
  @Get('github')
  @CriticalRateLimit()
  async github(@Query() query: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const session = await this.sessions.get(request);
    const state = queryParam(query, 'state');
    if (!state || !session.oauthState || state !== session.oauthState) throw new AuthError('oauth_state_mismatch', 403);
    const code = queryParam(query, 'code');
    if (session.username && session.userId) {
      await this.commandBus.execute(new BindGitHubCommand(session.userId, code));
      return ok(undefined, 'bind');
    }
    const user = await this.commandBus.execute(new LoginWithGitHubCommand(code, requestContext(request)));
    return this.logIn(user, request, reply);
  }

  @Get('wechat')
  @CriticalRateLimit()
  async wechat(@Query() query: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const user = await this.commandBus.execute(new LoginWithWeChatCommand(queryParam(query, 'code'), requestContext(request)));
    return this.logIn(user, request, reply);
  }

  @Get('wechat/bind')
  @CriticalRateLimit()
  @UserAuth()
  async bindWeChat(@Query() query: unknown, @CurrentUser() user: AuthenticatedUser) {
    await this.commandBus.execute(new BindWeChatCommand(user.id, queryParam(query, 'code')));
    return ok();
  }

  @Get('telegram/login')
  @CriticalRateLimit()
  async telegramLogin(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const user = await this.commandBus.execute(new LoginWithTelegramCommand(request.url));
    return this.logIn(user, request, reply);
  }

  /**
   * Answers a redirect to the settings page, not JSON (new-api's shape). Like every UserAuth route it
   * wants the New-Api-User header, which also shields it from cross-site requests: the console calls it from
   * the widget's JavaScript callback rather than letting the widget navigate here.
   */
  @Get('telegram/bind')
  @CriticalRateLimit()
  @UserAuth()
  async bindTelegram(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @CurrentUser() user: AuthenticatedUser) {
    await this.commandBus.execute(new BindTelegramCommand(user.id, request.url));
    return reply.redirect('/setting', 302);
  }

  private async logIn(user: UserEntity, request: FastifyRequest, reply: FastifyReply) {
    await this.sessions.startLogin(request, reply, user);
    return ok(toLoginUser(user));
  }
}
