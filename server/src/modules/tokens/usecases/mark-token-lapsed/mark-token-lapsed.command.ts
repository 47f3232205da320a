import { Command } from '@nestjs/cqrs';

/**
 * The relay found an enabled token past its expiry (status 3) or out of quota (status 4) when its key was used:
 * there is no cron, statuses change lazily, as in new-api. Resolves true when the status was written.
 */
export class MarkTokenLapsedCommand extends Command<boolean> {
  constructor(
    readonly tokenId: number,
    readonly status: 3 | 4,
    /** Unix seconds the relay judged the expiry against. */
    readonly now: number,
  ) {
    super();
  }
}
