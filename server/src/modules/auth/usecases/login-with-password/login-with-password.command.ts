import { Command } from '@nestjs/cqrs';
import type { UserEntity } from '#server/modules/users/user.entity';

/** Password login by username or email. Resolves to the user to start a session for; the controller starts it. */
export class LoginWithPasswordCommand extends Command<UserEntity> {
  /** The raw JSON body: the handler decides what a bad one means, in new-api's order. */
  constructor(readonly body: unknown) {
    super();
  }
}
