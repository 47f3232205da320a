import { Command } from '@nestjs/cqrs';

/** Binds the Telegram account of a widget callback to the caller (§3.10). */
export class BindTelegramCommand extends Command<void> {
  constructor(
    readonly userId: number,
    /** The raw request URL, whose query the widget signed. */
    readonly url: string,
  ) {
    super();
  }
}
