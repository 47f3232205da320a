import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { type AuthenticatedUser, CurrentUser, UserAuth } from '../../common/auth/auth.decorators';
import { ok } from '../../common/http/envelope';
import { CriticalRateLimit } from '../../common/rate-limit/rate-limit.decorators';
import { queryParam } from './request-input';
import { TurnstileCheck } from './turnstile/turnstile.guard';
import { BindEmailCommand } from './usecases/bind-email/bind-email.command';
import { ResetPasswordCommand } from './usecases/reset-password/reset-password.command';
import { SendPasswordResetCommand } from './usecases/send-password-reset/send-password-reset.command';
import { SendVerificationCodeCommand } from './usecases/send-verification-code/send-verification-code.command';

/** Email codes, password reset and email binding. */
@Controller('api')
export class EmailController {
  constructor(private readonly commandBus: CommandBus) {}

  @Get('verification')
  @CriticalRateLimit()
  @TurnstileCheck()
  async sendVerificationCode(@Query() query: unknown) {
    await this.commandBus.execute(new SendVerificationCodeCommand(queryParam(query, 'email')));
    return ok();
  }

  @Get('reset_password')
  @CriticalRateLimit()
  @TurnstileCheck()
  async sendPasswordReset(@Query() query: unknown) {
    await this.commandBus.execute(new SendPasswordResetCommand(queryParam(query, 'email')));
    return ok();
  }

  @Post('user/reset')
  @HttpCode(200)
  @CriticalRateLimit()
  async resetPassword(@Body() body: unknown) {
    const password = await this.commandBus.execute(new ResetPasswordCommand(body));
    return ok(password);
  }

  @Get('oauth/email/bind')
  @CriticalRateLimit()
  @UserAuth()
  async bindEmail(@Query() query: unknown, @CurrentUser() user: AuthenticatedUser) {
    await this.commandBus.execute(new BindEmailCommand(user.id, queryParam(query, 'email'), queryParam(query, 'code')));
    return ok();
  }
}
