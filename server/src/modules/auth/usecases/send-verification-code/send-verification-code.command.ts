import { Command } from '@nestjs/cqrs';

/** Mails a 6-hex email verification code, valid 10 minutes, used by register and email binding. */
export class SendVerificationCodeCommand extends Command<void> {
  constructor(readonly email: string) {
    super();
  }
}
