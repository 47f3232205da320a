import type { TokenConsumption, TokenQuotaAllotted } from '#server/modules/tokens/token.events';

/** One row of `token_balances`: what a token may still spend and what it has spent. */
export interface TokenBalance {
  userId: number;
  remainQuota: number;
  usedQuota: number;
  /** Unix seconds of the last charge (0: never used); the console's accessed_time. */
  accessedTime: number;
}

export const emptyTokenBalance: TokenBalance = Object.freeze({ userId: 0, remainQuota: 0, usedQuota: 0, accessedTime: 0 });

/** An allotment replaces the remaining quota; what was used stays used. */
export function applyAllotment(balance: TokenBalance, data: TokenQuotaAllotted['data']): TokenBalance {
  return { ...balance, userId: data.userId, remainQuota: data.remainQuota };
}

/**
 * A settled request charges the token: used up, and remaining down unless the token was unlimited when the request
 * was admitted (`tokenUnlimited` of QuotaConsumed: its remaining quota is neither enforced nor spent). It may go
 * below zero: a charge is never refused after the fact; admission is what keeps it bounded.
 */
export function applyConsumption(balance: TokenBalance, userId: number, consumption: TokenConsumption, at: number): TokenBalance {
  return {
    userId: balance.userId || userId,
    remainQuota: consumption.unlimited ? balance.remainQuota : balance.remainQuota - consumption.quota,
    usedQuota: balance.usedQuota + consumption.quota,
    accessedTime: Math.max(balance.accessedTime, at),
  };
}

/**
 * The token a refund gives back to, or null: a refund of a charge made without a token (`tokenId` 0, the
 * playground) touches no token row, as that charge did not (tokenConsumptionOf skips it).
 */
export function refundedTokenId(refund: { tokenId: number }): number | null {
  return refund.tokenId === 0 ? null : refund.tokenId;
}

/** A failed task's refund gives its charge back to the token that paid: used down, remaining up unless it was unlimited. */
export function applyRefund(balance: TokenBalance, userId: number, refund: { amount: number; tokenUnlimited: boolean }): TokenBalance {
  return {
    ...balance,
    userId: balance.userId || userId,
    remainQuota: refund.tokenUnlimited ? balance.remainQuota : balance.remainQuota + refund.amount,
    usedQuota: balance.usedQuota - refund.amount,
  };
}
