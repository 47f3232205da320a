import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { InvalidParamsError } from '#server/common/http/errors';
import { OptionsService } from '#server/modules/options/options.service';
import type { UserEntity } from '#server/modules/users/user.entity';
import { AuthError } from '../../auth.errors';
import { ExternalAccountsService } from '../../third-party/external-accounts.service';
import { WeChatClient } from '../../third-party/wechat.client';
import { LoginWithWeChatCommand } from './login-with-wechat.command';

@CommandHandler(LoginWithWeChatCommand)
export class LoginWithWeChatHandler implements ICommandHandler<LoginWithWeChatCommand> {
  constructor(
    private readonly options: OptionsService,
    private readonly wechat: WeChatClient,
    private readonly accounts: ExternalAccountsService,
  ) {}

  async execute({ code, context }: LoginWithWeChatCommand): Promise<UserEntity> {
    if (!this.options.getBool('WeChatAuthEnabled')) throw new AuthError('wechat_disabled');
    if (!code || code.length > 128) throw new InvalidParamsError();
    const wechatId = await this.wechat.wechatIdForCode(code);
    return this.accounts.signInOrSignUp('wechatId', wechatId, { usernamePrefix: 'wechat_', displayName: 'WeChat User' }, context);
  }
}
