import { Command } from '@nestjs/cqrs';

/** Binds the Telegram account of a signed widget callback to the caller. */
export class BindTelegramCommand extends Command<void> {
  constructor(
    readonly userId: number,
    /** The raw request URL, whose query the widget signed. */
    readonly url: string,
  ) {
    super();
  }
}
