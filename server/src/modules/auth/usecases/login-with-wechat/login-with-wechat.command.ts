import { Command } from '@nestjs/cqrs';
import type { UserEntity } from '#server/modules/users/user.entity';
import type { RequestContext } from '../../request-input';

/** WeChat login through the WeChat server, signing up on first use when registration is open. */
export class LoginWithWeChatCommand extends Command<UserEntity> {
  constructor(
    readonly code: string,
    readonly context: RequestContext,
  ) {
    super();
  }
}
