import type { AccountEvent } from './account.events';

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
    case 'QuotaRedeemed':
    case 'QuotaToppedUp':
      return { ...state, quota: state.quota + event.data.amount };
    case 'QuotaRefunded':
      return { ...state, quota: state.quota + event.data.amount, usedQuota: state.usedQuota - event.data.amount };
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
