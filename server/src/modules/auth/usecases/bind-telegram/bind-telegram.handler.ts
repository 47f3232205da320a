import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { OptionsService } from '#server/modules/options/options.service';
import { AuthError } from '../../auth.errors';
import { ExternalAccountsService } from '../../third-party/external-accounts.service';
import { telegramParams, verifyTelegramLogin } from '../../third-party/telegram-login';
import { BindTelegramCommand } from './bind-telegram.command';

@CommandHandler(BindTelegramCommand)
export class BindTelegramHandler implements ICommandHandler<BindTelegramCommand> {
  constructor(
    private readonly options: OptionsService,
    private readonly accounts: ExternalAccountsService,
  ) {}

  async execute({ userId, url }: BindTelegramCommand): Promise<void> {
    if (!this.options.getBool('TelegramOAuthEnabled')) throw new AuthError('telegram_disabled');
    const telegramId = verifyTelegramLogin(telegramParams(url), this.options.get('TelegramBotToken'), Math.floor(Date.now() / 1000));
    await this.accounts.bind('telegramId', telegramId, userId, 'telegram_already_bound');
  }
}
