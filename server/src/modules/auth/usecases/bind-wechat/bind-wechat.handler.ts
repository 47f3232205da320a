import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { InvalidParamsError } from '#server/common/http/errors';
import { OptionsService } from '#server/modules/options/options.service';
import { AuthError } from '../../auth.errors';
import { ExternalAccountsService } from '../../third-party/external-accounts.service';
import { WeChatClient } from '../../third-party/wechat.client';
import { BindWeChatCommand } from './bind-wechat.command';

@CommandHandler(BindWeChatCommand)
export class BindWeChatHandler implements ICommandHandler<BindWeChatCommand> {
  constructor(
    private readonly options: OptionsService,
    private readonly wechat: WeChatClient,
    private readonly accounts: ExternalAccountsService,
  ) {}

  async execute({ userId, code }: BindWeChatCommand): Promise<void> {
    if (!this.options.getBool('WeChatAuthEnabled')) throw new AuthError('wechat_disabled');
    if (!code || code.length > 128) throw new InvalidParamsError();
    const wechatId = await this.wechat.wechatIdForCode(code);
    await this.accounts.bind('wechatId', wechatId, userId, 'wechat_already_bound');
  }
}
