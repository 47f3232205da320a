/**
 * Events of the `redemption-{id}` stream (redemptionStream): one redemption code's whole life. Type strings are
 * explicit and stable forever: they are stored in the ledger. Quota amounts are quota units, safe integers.
 *
 * Redeeming credits the user with a QuotaRedeemed on their `account-{userId}` stream (modules/accounts), appended
 * after RedemptionCodeRedeemed won the race on this stream (docs/ledger.md).
 */
export const RedemptionEventType = {
  RedemptionCodeIssued: 'RedemptionCodeIssued',
  RedemptionCodeEdited: 'RedemptionCodeEdited',
  RedemptionCodeDisabled: 'RedemptionCodeDisabled',
  RedemptionCodeEnabled: 'RedemptionCodeEnabled',
  RedemptionCodeDeleted: 'RedemptionCodeDeleted',
  RedemptionCodeRedeemed: 'RedemptionCodeRedeemed',
} as const;

/** 1 unused (enabled), 2 disabled, 3 used: new-api's numbers, shown by the console as they are. */
export const RedemptionStatus = { Unused: 1, Disabled: 2, Used: 3 } as const;
export type RedemptionStatusValue = (typeof RedemptionStatus)[keyof typeof RedemptionStatus];

export interface RedemptionCodeIssued {
  type: 'RedemptionCodeIssued';
  data: { id: number; key: string; name: string; quota: number; creatorId: number; createdTime: number };
}

export interface RedemptionCodeEdited {
  type: 'RedemptionCodeEdited';
  data: { name: string; quota: number };
}

export interface RedemptionCodeDisabled {
  type: 'RedemptionCodeDisabled';
  data: Record<string, never>;
}

export interface RedemptionCodeEnabled {
  type: 'RedemptionCodeEnabled';
  data: Record<string, never>;
}

export interface RedemptionCodeDeleted {
  type: 'RedemptionCodeDeleted';
  data: Record<string, never>;
}

/** `username` is the redeemer's, kept so the account credit (and its log row) can be re-driven from this event. */
export interface RedemptionCodeRedeemed {
  type: 'RedemptionCodeRedeemed';
  data: { userId: number; username: string; quota: number; redeemedTime: number };
}

export type RedemptionEvent =
  | RedemptionCodeIssued
  | RedemptionCodeEdited
  | RedemptionCodeDisabled
  | RedemptionCodeEnabled
  | RedemptionCodeDeleted
  | RedemptionCodeRedeemed;
