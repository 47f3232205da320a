import { Command } from '@nestjs/cqrs';
import type { RequestContext } from '../../request-input';

/** Self-registration with a password (§3.4). Does not log the user in. */
export class RegisterUserCommand extends Command<{ id: number }> {
  constructor(
    readonly body: unknown,
    readonly context: RequestContext,
  ) {
    super();
  }
}
