import { DomainError } from '../../common/http/errors';

/** GORM's own text for a missing (or soft-deleted) row, as new-api answers it. */
export class RedemptionNotFoundError extends DomainError {
  constructor() {
    super('record not found', 'redemption_not_found');
  }
}

/** id 0 (or absent), worded as new-api's model layer. */
export class RedemptionIdRequiredError extends DomainError {
  constructor() {
    super('id 为空！', 'redemption_id_required');
  }
}

export class RedemptionNameLengthError extends DomainError {
  constructor() {
    super('兑换码名称长度必须在1-20之间', 'redemption_name_length');
  }
}

export class RedemptionCountTooSmallError extends DomainError {
  constructor() {
    super('兑换码个数必须大于0', 'redemption_count_too_small');
  }
}

export class RedemptionCountTooLargeError extends DomainError {
  constructor() {
    super('一次兑换码批量生成的个数不能大于 100', 'redemption_count_too_large');
  }
}

/** Our bound (new-api has none): no negative codes, and balances stay safe integers however many are redeemed. */
export class RedemptionQuotaOutOfRangeError extends DomainError {
  constructor(max: number) {
    super(`兑换码额度必须在 0 到 ${max} 之间`, 'redemption_quota_out_of_range');
  }
}

/** A fix of new-api (which lets an admin edit or re-enable a used code, so it could be redeemed twice). */
export class RedemptionCodeUsedError extends DomainError {
  constructor(action: 'edit' | 'status') {
    super(action === 'edit' ? '兑换码已被使用，无法编辑' : '兑换码已被使用，无法启用或禁用', 'redemption_code_used');
  }
}

/** An admin edit raced another change of the same code: answered, so the admin decides again. */
export class RedemptionChangedError extends DomainError {
  constructor() {
    super('兑换码已被同时修改，请刷新后重试', 'redemption_changed');
  }
}

/** Redeem refusals, with new-api's texts ("兑换失败，" + the model's error). */
export class RedeemFailedError extends DomainError {
  constructor(reason: 'no_key' | 'invalid' | 'used') {
    const text = { no_key: '未提供兑换码', invalid: '无效的兑换码', used: '该兑换码已被使用' }[reason];
    super(`兑换失败，${text}`, `redeem_${reason}`);
  }
}
