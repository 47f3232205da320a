import { Command } from '@nestjs/cqrs';
import type { Actor } from '#server/ledger/event-store.port';
import type { IssueRedemptionFields } from '../../redemption-input';

export interface IssueRedemptionCodesInput {
  creatorId: number;
  fields: IssueRedemptionFields;
  actor: Actor;
  correlationId: string;
  clientIp: string | null;
}

/** The keys issued, in order; `error` when the batch stopped part-way (new-api answers the keys made so far). */
export interface IssueRedemptionCodesResult {
  keys: string[];
  error: string | null;
}

/** POST /api/redemption/: `count` codes, one RedemptionCodeIssued stream each; resolves once the list shows them. */
export class IssueRedemptionCodesCommand extends Command<IssueRedemptionCodesResult> {
  constructor(readonly input: IssueRedemptionCodesInput) {
    super();
  }
}
