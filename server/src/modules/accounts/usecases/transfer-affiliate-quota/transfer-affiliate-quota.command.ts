import { Command } from '@nestjs/cqrs';
import type { Actor } from '#server/ledger/event-store.port';

export interface TransferAffiliateQuotaInput {
  userId: number;
  /** The owner's username, recorded for the log row. */
  username: string;
  amount: number;
  actor: Actor;
  correlationId: string;
  clientIp: string | null;
}

/** Moves `amount` of pending invite earnings (aff_quota) into quota; resolves once the read models show it. */
export class TransferAffiliateQuotaCommand extends Command<{ position: number }> {
  constructor(readonly input: TransferAffiliateQuotaInput) {
    super();
  }
}
