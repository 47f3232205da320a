import { DomainError } from '../../common/http/errors';

/**
 * Refusals of POST /api/user/amount and /api/user/pay. Those two routes answer `{message:"error", data:<text>}`
 * (no `success` key, new-api's shape), so the controller turns these into that envelope; the texts are new-api's
 * unless marked "ours".
 */
export class TopUpRefusedError extends DomainError {
  constructor(message: string) {
    super(message, 'topup_refused');
  }
}

/** A body that does not decode into `{amount:int, payment_method:string, top_up_code:string}`. */
export const TOPUP_BAD_PARAMS = '参数错误';
export const TOPUP_MONEY_TOO_LOW = '充值金额过低';
export const TOPUP_NOT_CONFIGURED = '当前管理员未配置支付信息';
/** Ours: new-api sent an empty Epay type for anything but zfb and wx. */
export const TOPUP_UNKNOWN_METHOD = '不支持的支付方式';

export const topUpBelowMinimum = (min: number) => `充值数量不能小于 ${min}`;
/** Ours: new-api had no upper bound (a large int overflowed its quota arithmetic). */
export const topUpAboveMaximum = (max: number) => `充值数量不能大于 ${max}`;

/** A trade number that is already an order's: the random part collided (a programming-level failure, retried by the user). */
export class TradeNumberTakenError extends DomainError {
  constructor() {
    super('订单号冲突，请重试', 'trade_no_taken');
  }
}
