import { Command } from '@nestjs/cqrs';
import type { UserEntity } from '../../../users/user.entity';
import type { RequestContext } from '../../request-input';

/** GitHub OAuth login, signing up on first use when registration is open (§3.8). State is checked before. */
export class LoginWithGitHubCommand extends Command<UserEntity> {
  constructor(
    readonly code: string,
    readonly context: RequestContext,
  ) {
    super();
  }
}
