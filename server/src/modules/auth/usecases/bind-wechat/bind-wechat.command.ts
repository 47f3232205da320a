import { Command } from '@nestjs/cqrs';

/** Binds a WeChat account to the caller (§3.9). */
export class BindWeChatCommand extends Command<void> {
  constructor(
    readonly userId: number,
    readonly code: string,
  ) {
    super();
  }
}
