import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MailModule } from '../mail/mail.module';
import { UserEntity } from '../users/user.entity';
import { EmailController } from './email.controller';
import { LoginController } from './login.controller';
import { OAuthController } from './oauth.controller';
import { ExternalAccountsService } from './third-party/external-accounts.service';
import { GitHubClient } from './third-party/github.client';
import { WeChatClient } from './third-party/wechat.client';
import { TurnstileClient } from './turnstile/turnstile.client';
import { TurnstileGuard } from './turnstile/turnstile.guard';
import { BindEmailHandler } from './usecases/bind-email/bind-email.handler';
import { BindGitHubHandler } from './usecases/bind-github/bind-github.handler';
import { BindTelegramHandler } from './usecases/bind-telegram/bind-telegram.handler';
import { BindWeChatHandler } from './usecases/bind-wechat/bind-wechat.handler';
import { LoginWithGitHubHandler } from './usecases/login-with-github/login-with-github.handler';
import { LoginWithPasswordHandler } from './usecases/login-with-password/login-with-password.handler';
import { LoginWithTelegramHandler } from './usecases/login-with-telegram/login-with-telegram.handler';
import { LoginWithWeChatHandler } from './usecases/login-with-wechat/login-with-wechat.handler';
import { RegisterUserHandler } from './usecases/register-user/register-user.handler';
import { ResetPasswordHandler } from './usecases/reset-password/reset-password.handler';
import { SendPasswordResetHandler } from './usecases/send-password-reset/send-password-reset.handler';
import { SendVerificationCodeHandler } from './usecases/send-verification-code/send-verification-code.handler';
import { VerificationCodeStore } from './verification/verification-code.store';

const HANDLERS = [
  LoginWithPasswordHandler,
  RegisterUserHandler,
  SendVerificationCodeHandler,
  SendPasswordResetHandler,
  ResetPasswordHandler,
  BindEmailHandler,
  LoginWithGitHubHandler,
  BindGitHubHandler,
  LoginWithWeChatHandler,
  BindWeChatHandler,
  LoginWithTelegramHandler,
  BindTelegramHandler,
];

/**
 * Identity: password login and registration, email codes and password reset, GitHub / WeChat / Telegram
 * login and binding, Turnstile. Accounts are created through the users module's CreateUserCommand.
 */
@Module({
  imports: [TypeOrmModule.forFeature([UserEntity]), MailModule],
  controllers: [LoginController, EmailController, OAuthController],
  providers: [...HANDLERS, VerificationCodeStore, TurnstileClient, TurnstileGuard, GitHubClient, WeChatClient, ExternalAccountsService],
})
export class AuthModule {}
