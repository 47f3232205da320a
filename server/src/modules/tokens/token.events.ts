/**
 * Events of the `token-{tokenId}` stream (tokenStream). Type strings are explicit and stable forever: they are
 * stored in the ledger. Quota amounts are quota units (500000 = $1 by default), always safe integers.
 *
 * A token's consumption is not on its own stream: the relay appends one QuotaConsumed per settled request on the
 * owner's `account-{userId}` stream, carrying `tokenId` (see TokenConsumption and docs/ledger.md), so a request
 * is charged by one append and the token and the account can never disagree about it.
 */
export const TokenEventType = {
  TokenQuotaAllotted: 'TokenQuotaAllotted',
} as const;

export interface TokenQuota {
  remainQuota: number;
  unlimited: boolean;
}

/**
 * The token's remaining quota was set: on creation (`before` null) and whenever an edit changes the remaining
 * quota or the unlimited flag (`before` = the balance the edit was decided against). Later consumption is
 * subtracted from `remainQuota`; a later allotment replaces it.
 */
export interface TokenQuotaAllotted {
  type: 'TokenQuotaAllotted';
  data: { userId: number; remainQuota: number; unlimited: boolean; before: TokenQuota | null };
}

export type TokenEvent = TokenQuotaAllotted;

/**
 * The part of a QuotaConsumed account event (modules/accounts) the token read models use. The event carries much
 * more (tokens, ratios, channel path…); these fields must keep these names and meanings.
 */
export interface TokenConsumption {
  /** The token the request was made with; 0 or absent for requests without one (the playground). */
  tokenId: number;
  /** Quota units charged for the request (≥ 0). */
  quota: number;
  /** The token was unlimited when the request was admitted: the charge counts as used but leaves remain_quota. */
  unlimited: boolean;
}
