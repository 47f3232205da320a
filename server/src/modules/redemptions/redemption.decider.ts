import { RedeemFailedError, RedemptionCodeUsedError, RedemptionNotFoundError } from './redemption.errors';
import { type RedemptionEvent, RedemptionStatus } from './redemption.events';
import type { RedemptionState } from './redemption.state';

export type RedemptionCommand =
  | { type: 'IssueRedemptionCode'; id: number; key: string; name: string; quota: number; creatorId: number; createdTime: number }
  | { type: 'EditRedemptionCode'; name: string; quota: number }
  | { type: 'ChangeRedemptionCodeStatus'; status: typeof RedemptionStatus.Unused | typeof RedemptionStatus.Disabled }
  | { type: 'DeleteRedemptionCode' }
  | { type: 'RedeemRedemptionCode'; userId: number; username: string; redeemedTime: number };

/** A programming error: the ledger only takes safe-integer amounts (the input layer refuses the rest). */
export class InvalidRedemptionQuotaError extends Error {
  readonly code = 'invalid_redemption_quota';
  constructor(value: unknown) {
    super(`Invalid redemption quota ${String(value)}: amounts are non-negative safe integers`);
  }
}

function assertQuota(quota: number): void {
  if (!Number.isSafeInteger(quota) || quota < 0) throw new InvalidRedemptionQuotaError(quota);
}

/** Pure: the events a command produces on a redemption stream. Throws a DomainError to refuse. */
export function decide(command: RedemptionCommand, state: RedemptionState): RedemptionEvent[] {
  if (command.type === 'IssueRedemptionCode') {
    assertQuota(command.quota);
    // A retried issue of the same id is a no-op: ids come from a sequence and are never handed out twice.
    if (state.issued) return [];
    const { type: _type, ...data } = command;
    return [{ type: 'RedemptionCodeIssued', data }];
  }
  if (command.type === 'RedeemRedemptionCode') {
    if (!state.issued || state.deleted) throw new RedeemFailedError('invalid');
    // new-api answers a disabled code with the same text as a used one.
    if (state.status !== RedemptionStatus.Unused) throw new RedeemFailedError('used');
    const { userId, username, redeemedTime } = command;
    return [{ type: 'RedemptionCodeRedeemed', data: { userId, username, quota: state.quota, redeemedTime } }];
  }
  if (!state.issued || state.deleted) throw new RedemptionNotFoundError();
  switch (command.type) {
    case 'EditRedemptionCode':
      assertQuota(command.quota);
      if (state.status === RedemptionStatus.Used) throw new RedemptionCodeUsedError('edit');
      if (command.name === state.name && command.quota === state.quota) return [];
      return [{ type: 'RedemptionCodeEdited', data: { name: command.name, quota: command.quota } }];
    case 'ChangeRedemptionCodeStatus':
      if (state.status === RedemptionStatus.Used) throw new RedemptionCodeUsedError('status');
      if (command.status === state.status) return [];
      return [
        command.status === RedemptionStatus.Disabled
          ? { type: 'RedemptionCodeDisabled', data: {} }
          : { type: 'RedemptionCodeEnabled', data: {} },
      ];
    case 'DeleteRedemptionCode':
      return [{ type: 'RedemptionCodeDeleted', data: {} }];
  }
}

// The fold lives in redemption.state.ts (the read model folds with it too); re-exported for the handlers.
export { evolve, fold, initialRedemptionState, type RedemptionState } from './redemption.state';
