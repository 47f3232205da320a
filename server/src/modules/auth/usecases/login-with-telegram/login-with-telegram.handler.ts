import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { OptionsService } from '#server/modules/options/options.service';
import { type UserEntity, UserStatus } from '#server/modules/users/user.entity';
import { AuthError } from '../../auth.errors';
import { ExternalAccountsService } from '../../third-party/external-accounts.service';
import { telegramParams, verifyTelegramLogin } from '../../third-party/telegram-login';
import { LoginWithTelegramCommand } from './login-with-telegram.command';

@CommandHandler(LoginWithTelegramCommand)
export class LoginWithTelegramHandler implements ICommandHandler<LoginWithTelegramCommand> {
  constructor(
    private readonly options: OptionsService,
    private readonly accounts: ExternalAccountsService,
  ) {}

  async execute({ url }: LoginWithTelegramCommand): Promise<UserEntity> {
    if (!this.options.getBool('TelegramOAuthEnabled')) throw new AuthError('telegram_disabled');
    const telegramId = verifyTelegramLogin(telegramParams(url), this.options.get('TelegramBotToken'), Math.floor(Date.now() / 1000));
    const user = await this.accounts.boundAccount('telegramId', telegramId);
    if (!user) throw new AuthError('telegram_not_bound');
    // Ours: new-api logged a banned user in and left it to the next call to refuse them.
    if (user.status !== UserStatus.Enabled) throw new AuthError('user_disabled');
    return user;
  }
}
