import { Command } from '@nestjs/cqrs';

/** Sets the caller's email to an address proven by a verification code (§3.7). */
export class BindEmailCommand extends Command<void> {
  constructor(
    readonly userId: number,
    readonly email: string,
    readonly code: string,
  ) {
    super();
  }
}
