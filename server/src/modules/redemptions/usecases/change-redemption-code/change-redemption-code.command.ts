import { Command } from '@nestjs/cqrs';
import type { Actor } from '#server/ledger/event-store.port';
import type { RedemptionJson } from '../../redemption.serializer';

/** What an admin change asks of a code: an edit (absent fields keep their value), a status, or the deletion. */
export type RedemptionChange = { type: 'edit'; name?: string; quota?: number } | { type: 'status'; status: 1 | 2 } | { type: 'delete' };

export interface ChangeRedemptionCodeInput {
  id: number;
  change: RedemptionChange;
  actor: Actor;
  correlationId: string;
  clientIp: string | null;
}

/** PUT /api/redemption/ (with or without `?status_only=`) and DELETE: answers the code as it now is (null once deleted). */
export class ChangeRedemptionCodeCommand extends Command<RedemptionJson | null> {
  constructor(readonly input: ChangeRedemptionCodeInput) {
    super();
  }
}
