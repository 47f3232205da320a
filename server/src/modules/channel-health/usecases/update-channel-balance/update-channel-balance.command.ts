import { Command } from '@nestjs/cqrs';
import type { Actor } from '#server/ledger/event-store.port';

export interface UpdateChannelBalanceInput {
  channelId: number;
  /** The balance-all job disables an enabled channel whose balance is ≤ 0 (reason 余额不足); a single refresh does not. */
  disableWhenEmpty: boolean;
  causeKey: string;
  correlationId: string;
  actor: Actor;
  clientIp: string | null;
}

export interface UpdateChannelBalanceResult {
  balance: number;
  position: number;
}

/**
 * Asks the channel's provider for its balance (endpoints per type in fetch-channel-balance.ts) and appends ChannelBalanceUpdated. Throws
 * `尚未实现` for types without a balance endpoint and the provider's error when the query fails (nothing appended).
 */
export class UpdateChannelBalanceCommand extends Command<UpdateChannelBalanceResult> {
  constructor(readonly input: UpdateChannelBalanceInput) {
    super();
  }
}
