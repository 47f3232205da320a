import { AffiliateTransferBelowMinimumError, InsufficientAffiliateQuotaError, InvalidAmountError } from './account.errors';
import type { AccountEvent, QuotaGrantKind } from './account.events';
import { formatLogQuota, type QuotaDisplay } from './quota-display';

/** The money of one user, folded from their account stream. */
export interface AccountState {
  quota: number;
  usedQuota: number;
  requestCount: number;
  affCount: number;
  affQuota: number;
  affHistoryQuota: number;
}

export const initialAccountState: AccountState = Object.freeze({
  quota: 0,
  usedQuota: 0,
  requestCount: 0,
  affCount: 0,
  affQuota: 0,
  affHistoryQuota: 0,
});

export type AccountCommand =
  | { type: 'GrantQuota'; amount: number; kind: QuotaGrantKind }
  | { type: 'RewardInviter'; amount: number; inviteeId: number }
  | { type: 'TransferAffiliateQuota'; amount: number; minimum: number; display: QuotaDisplay }
  | { type: 'AdjustQuotaByAdmin'; after: number; adminId: number };

function assertAmount(amount: number): void {
  if (!Number.isSafeInteger(amount)) throw new InvalidAmountError(amount);
}

/** Pure: what happens to an account when `command` meets `state`. Throws a DomainError to refuse. */
export function decide(command: AccountCommand, state: AccountState): AccountEvent[] {
  switch (command.type) {
    case 'GrantQuota':
      assertAmount(command.amount);
      // The reference grants (and logs) only positive options; 0 means "no gift".
      return command.amount > 0 ? [{ type: 'QuotaGranted', data: { amount: command.amount, kind: command.kind } }] : [];
    case 'RewardInviter':
      assertAmount(command.amount);
      // aff_count moves only with a positive reward, exactly as the reference (§3.4).
      return command.amount > 0
        ? [{ type: 'InviterRewarded', data: { amount: command.amount, inviteeId: command.inviteeId } }]
        : [];
    case 'TransferAffiliateQuota':
      assertAmount(command.amount);
      if (command.amount < command.minimum) {
        throw new AffiliateTransferBelowMinimumError(command.minimum, formatLogQuota(command.minimum, command.display));
      }
      if (state.affQuota < command.amount) throw new InsufficientAffiliateQuotaError(state.affQuota, command.amount);
      return [{ type: 'AffiliateQuotaTransferred', data: { amount: command.amount } }];
    case 'AdjustQuotaByAdmin':
      assertAmount(command.after);
      return command.after === state.quota
        ? []
        : [{ type: 'QuotaAdjustedByAdmin', data: { before: state.quota, after: command.after, adminId: command.adminId } }];
  }
}

/** Pure: the state after `event`. */
export function evolve(state: AccountState, event: AccountEvent): AccountState {
  switch (event.type) {
    case 'QuotaGranted':
      return { ...state, quota: state.quota + event.data.amount };
    case 'InviterRewarded':
      return {
        ...state,
        affCount: state.affCount + 1,
        affQuota: state.affQuota + event.data.amount,
        affHistoryQuota: state.affHistoryQuota + event.data.amount,
      };
    case 'AffiliateQuotaTransferred':
      return { ...state, affQuota: state.affQuota - event.data.amount, quota: state.quota + event.data.amount };
    case 'QuotaAdjustedByAdmin':
      return { ...state, quota: event.data.after };
    default:
      return assertNever(event);
  }
}

/**
 * A settled relay request (QuotaConsumed, appended by the relay's settlement) on the account: quota down by the
 * charge, used quota up by it, one more request. The quota may go below zero: a charge is never refused after the
 * fact; admission is what keeps it bounded. Not part of AccountEvent: the relay, not this decider, produces it.
 */
export function applyQuotaConsumed(state: AccountState, quota: number): AccountState {
  return { ...state, quota: state.quota - quota, usedQuota: state.usedQuota + quota, requestCount: state.requestCount + 1 };
}

export function fold(events: readonly AccountEvent[], state: AccountState = initialAccountState): AccountState {
  return events.reduce(evolve, state);
}

function assertNever(event: never): never {
  throw new Error(`Unhandled account event ${JSON.stringify(event)}`);
}
