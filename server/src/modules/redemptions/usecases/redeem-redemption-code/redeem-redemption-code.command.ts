import { Command } from '@nestjs/cqrs';
import type { Actor } from '#server/ledger/event-store.port';

export interface RedeemRedemptionCodeInput {
  userId: number;
  username: string;
  key: string;
  actor: Actor;
  correlationId: string;
  clientIp: string | null;
}

/** POST /api/user/topup: redeems the code once; resolves to the quota added, once the balance and log show it. */
export class RedeemRedemptionCodeCommand extends Command<number> {
  constructor(readonly input: RedeemRedemptionCodeInput) {
    super();
  }
}
