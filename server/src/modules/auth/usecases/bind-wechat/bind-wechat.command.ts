import { Command } from '@nestjs/cqrs';

/** Binds a WeChat account (a code checked by the WeChat server) to the caller. */
export class BindWeChatCommand extends Command<void> {
  constructor(
    readonly userId: number,
    readonly code: string,
  ) {
    super();
  }
}
