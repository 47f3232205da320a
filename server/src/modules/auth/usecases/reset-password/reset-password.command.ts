import { Command } from '@nestjs/cqrs';

/** Confirms a reset link: sets a new random password and returns it (§3.6). */
export class ResetPasswordCommand extends Command<string> {
  constructor(readonly body: unknown) {
    super();
  }
}
