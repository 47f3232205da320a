import { Command } from '@nestjs/cqrs';
import type { UserEntity } from '#server/modules/users/user.entity';
import type { RequestContext } from '../../request-input';

/** GitHub OAuth login, signing up on first use when registration is open. State is checked before. */
export class LoginWithGitHubCommand extends Command<UserEntity> {
  constructor(
    readonly code: string,
    readonly context: RequestContext,
  ) {
    super();
  }
}
