import { Body, Controller, Get, HttpCode, Post, Req, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SessionService } from '../../common/auth/session.service';
import { ok } from '../../common/http/envelope';
import { CriticalRateLimit } from '../../common/rate-limit/rate-limit.decorators';
import { toLoginUser } from '../users/user.serializer';
import { requestContext } from './request-input';
import { TurnstileCheck } from './turnstile/turnstile.guard';
import { LoginWithPasswordCommand } from './usecases/login-with-password/login-with-password.command';
import { RegisterUserCommand } from './usecases/register-user/register-user.command';

/** Password login, logout and self-registration. */
@Controller('api/user')
export class LoginController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly sessions: SessionService,
  ) {}

  @Post('login')
  @HttpCode(200)
  @CriticalRateLimit()
  @TurnstileCheck()
  async login(@Body() body: unknown, @Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const user = await this.commandBus.execute(new LoginWithPasswordCommand(body));
    await this.sessions.startLogin(request, reply, user);
    return ok(toLoginUser(user));
  }

  @Get('logout')
  async logout(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.sessions.destroy(request, reply);
    return ok();
  }

  @Post('register')
  @HttpCode(200)
  @CriticalRateLimit()
  @TurnstileCheck()
  async register(@Body() body: unknown, @Req() request: FastifyRequest) {
    await this.commandBus.execute(new RegisterUserCommand(body, requestContext(request)));
    // Registration does not log in: the console sends the user to the login page.
    return ok();
  }
}
