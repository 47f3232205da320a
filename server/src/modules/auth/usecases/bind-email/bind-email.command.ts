import { Command } from '@nestjs/cqrs';

/** Sets the caller's email to an address proven by a verification code (the same codes register uses). */
export class BindEmailCommand extends Command<void> {
  constructor(
    readonly userId: number,
    readonly email: string,
    readonly code: string,
  ) {
    super();
  }
}
