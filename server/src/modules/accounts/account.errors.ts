import { DomainError } from '../../common/http/errors';

/** POST /api/user/aff_transfer below QuotaPerUnit; the message words the minimum like a log line, as new-api does. */
export class AffiliateTransferBelowMinimumError extends DomainError {
  constructor(
    readonly minimum: number,
    formattedMinimum: string,
  ) {
    super(`划转失败 转移额度最小为${formattedMinimum}！`, 'aff_transfer_below_minimum');
  }
}

export class InsufficientAffiliateQuotaError extends DomainError {
  constructor(
    readonly available: number,
    readonly requested: number,
  ) {
    super('划转失败 邀请额度不足！', 'aff_quota_insufficient');
  }
}

/**
 * The account changed between the moment an admin's edit was computed and the append (a relay charge, a
 * transfer, another admin). Answered, never retried: the admin decides again against the new balance.
 */
export class AccountChangedError extends DomainError {
  constructor(
    readonly current: number,
    formattedCurrent: string,
  ) {
    super(`用户额度已在您编辑期间发生变化（当前为 ${formattedCurrent}），请刷新后重新修改`, 'account_changed');
  }
}

/** A programming error: the ledger only takes safe-integer amounts. */
export class InvalidAmountError extends Error {
  readonly code = 'invalid_amount';
  constructor(amount: unknown) {
    super(`Invalid quota amount ${String(amount)}: amounts are safe integers`);
  }
}
