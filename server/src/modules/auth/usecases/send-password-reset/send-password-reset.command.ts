import { Command } from '@nestjs/cqrs';

/** Mails a single-use password-reset link valid 10 minutes, to a registered address. */
export class SendPasswordResetCommand extends Command<void> {
  constructor(readonly email: string) {
    super();
  }
}
