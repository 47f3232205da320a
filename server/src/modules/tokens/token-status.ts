import { TokenCannotBeEnabledError } from './token.errors';

export const TokenStatus = { Enabled: 1, Disabled: 2, Expired: 3, Exhausted: 4 } as const;
export type TokenStatusValue = (typeof TokenStatus)[keyof typeof TokenStatus];

/** -1 in expired_time: the token never expires. */
export const NEVER_EXPIRES = -1;

export interface TokenStatusFacts {
  status: number;
  expiredTime: number;
  unlimitedQuota: boolean;
  /** From the token-balances projection. */
  remainQuota: number;
}

/**
 * new-api's rule for `status: 1` in PUT /api/token/: an expired or exhausted
 * token can be enabled only once its expiry or quota has been fixed. Decided on the token as it is now.
 */
export function assertCanEnable(token: TokenStatusFacts, now: number): void {
  if (token.status === TokenStatus.Expired && token.expiredTime !== NEVER_EXPIRES && token.expiredTime <= now) {
    throw new TokenCannotBeEnabledError('令牌已过期，无法启用，请先修改令牌过期时间，或者设置为永不过期', 'token_expired');
  }
  if (token.status === TokenStatus.Exhausted && token.remainQuota <= 0 && !token.unlimitedQuota) {
    throw new TokenCannotBeEnabledError('令牌可用额度已用尽，无法启用，请先修改令牌剩余额度，或者设置为无限额度', 'token_exhausted');
  }
}

export function unixSeconds(date: Date = new Date()): number {
  return Math.floor(date.getTime() / 1000);
}
