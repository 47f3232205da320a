import type { QuotaDisplay } from './quota-display';

/**
 * Events of the `account-{userId}` stream (accountStream). Type strings are explicit and stable forever: they
 * are stored in the ledger. Amounts are quota units (500000 = $1 by default), always safe integers.
 *
 * The relay's QuotaConsumed (quota-consumed.event.ts, beside this file) is not in this union: the settlement, not
 * the decider, produces it. Later top-ups and refunds join the union; evolve's exhaustive switch then points at
 * every place that must learn about them.
 */
export const AccountEventType = {
  QuotaGranted: 'QuotaGranted',
  InviterRewarded: 'InviterRewarded',
  AffiliateQuotaTransferred: 'AffiliateQuotaTransferred',
  QuotaAdjustedByAdmin: 'QuotaAdjustedByAdmin',
  QuotaRedeemed: 'QuotaRedeemed',
  QuotaToppedUp: 'QuotaToppedUp',
  QuotaRefunded: 'QuotaRefunded',
} as const;

export type QuotaGrantKind = 'new_user' | 'invitee_gift' | 'root_initial';

export interface QuotaGranted {
  type: 'QuotaGranted';
  data: { amount: number; kind: QuotaGrantKind };
}

/** The inviter's reward goes to pending invite earnings (aff_quota), not to quota; the invitee moves it with an affiliate transfer. */
export interface InviterRewarded {
  type: 'InviterRewarded';
  data: { amount: number; inviteeId: number };
}

/** Pending invite earnings moved into quota (POST /api/user/aff_transfer). */
export interface AffiliateQuotaTransferred {
  type: 'AffiliateQuotaTransferred';
  data: { amount: number };
}

/** An admin set the quota (PUT /api/user/); `before` is the balance the decision was taken against. */
export interface QuotaAdjustedByAdmin {
  type: 'QuotaAdjustedByAdmin';
  data: { before: number; after: number; adminId: number };
}

/**
 * A redemption code's quota credited to the user who redeemed it (POST /api/user/topup), appended after the code's
 * RedemptionCodeRedeemed won the race; its event id derives from the code, so it can be appended only once.
 */
export interface QuotaRedeemed {
  type: 'QuotaRedeemed';
  data: { amount: number; redemptionId: number };
}

/**
 * An online top-up paid through Epay (GET /api/user/epay/notify): `amount` quota units credited for the order
 * `tradeNo`, whose gateway callback reported `money` paid with `paymentMethod` (the order's `zfb` or `wx`). Its event
 * id derives from the trade number, so however many callbacks arrive (on any process) it is appended once.
 */
export interface QuotaToppedUp {
  type: 'QuotaToppedUp';
  data: { amount: number; tradeNo: string; money: number; paymentMethod: string };
}

/** The platform of an asynchronous task whose charge a QuotaRefunded gives back. */
export type TaskPlatform = 'midjourney' | 'suno';

/**
 * The charge of an asynchronous task (a Midjourney or Suno submit, charged once by its QuotaConsumed) given back
 * because the task failed later: `amount` back to the user's quota and to the token `tokenId` that paid (its
 * remaining quota only when it was not unlimited: `tokenUnlimited`), with the used quota down by it. Its event id
 * derives from the task (deterministicEventId('task-refund', taskId)), so however many pollers see the failure it
 * is appended once. `reason` is the task's failure reason, shown on the statement line.
 */
export interface QuotaRefunded {
  type: 'QuotaRefunded';
  data: {
    amount: number;
    tokenId: number;
    tokenUnlimited: boolean;
    reason: string;
    /** This server's task id (the submit's request id). */
    taskId: string;
    /** The upstream's id of the task (Midjourney's mj_id), which the log line names. */
    upstreamTaskId: string;
    platform: TaskPlatform;
  };
}

export type AccountEvent =
  | QuotaGranted
  | InviterRewarded
  | AffiliateQuotaTransferred
  | QuotaAdjustedByAdmin
  | QuotaRedeemed
  | QuotaToppedUp
  | QuotaRefunded;
export type AccountEventTypeName = AccountEvent['type'];

/**
 * What every stored account event carries beside its domain data: the owner's username and the quota wording in
 * force when it happened. The logs projection words its rows from these, never from today's users table or
 * options, so replaying the ledger writes the same rows the live projection wrote.
 */
export interface LogAnnotation {
  username: string;
  quotaDisplay: QuotaDisplay;
}

export type StoredAccountEventData<E extends AccountEvent = AccountEvent> = E['data'] & LogAnnotation;

const KNOWN_TYPES = new Set<string>(Object.values(AccountEventType));

export function isAccountEventType(type: string): type is AccountEventTypeName {
  return KNOWN_TYPES.has(type);
}
