import { Command } from '@nestjs/cqrs';
import type { RequestContext } from '../../request-input';

/** Self-registration with a password. Does not log the user in (as in new-api). */
export class RegisterUserCommand extends Command<{ id: number }> {
  constructor(
    readonly body: unknown,
    readonly context: RequestContext,
  ) {
    super();
  }
}
