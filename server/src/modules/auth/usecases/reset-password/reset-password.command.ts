import { Command } from '@nestjs/cqrs';

/** Confirms a reset link (single use): sets a new random password and returns it. */
export class ResetPasswordCommand extends Command<string> {
  constructor(readonly body: unknown) {
    super();
  }
}
