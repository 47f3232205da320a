/**
 * Events of the `topup-order-{tradeNo}` stream (topUpStream): one online top-up order through Epay. Type strings are
 * explicit and stable forever: they are stored in the ledger.
 *
 * An order is placed (TopUpOrdered, POST /api/user/pay), then the gateway's signed callback settles it: TopUpPaid when
 * the paid money equals the order's, TopUpFailed when it does not. Paying credits the user with a QuotaToppedUp on
 * their `account-{userId}` stream (modules/accounts), whose id derives from the trade number.
 */
export const TopUpEventType = {
  TopUpOrdered: 'TopUpOrdered',
  TopUpPaid: 'TopUpPaid',
  TopUpFailed: 'TopUpFailed',
} as const;

/** The payment methods the console offers: Alipay (`zfb`, Epay type `alipay`) and WeChat Pay (`wx`, Epay type `wxpay`). */
export const PAYMENT_METHODS = { zfb: 'alipay', wx: 'wxpay' } as const;
export type PaymentMethod = keyof typeof PAYMENT_METHODS;

export function isPaymentMethod(value: string): value is PaymentMethod {
  return Object.prototype.hasOwnProperty.call(PAYMENT_METHODS, value);
}

/**
 * `amount` is what the user asked for, in the unit of the request (USD of quota in currency display, else quota
 * units: new-api's top_ups.amount); `quota` is what paying credits, in quota units; `money` is the payable money
 * sent to the gateway (2 decimals).
 */
export interface TopUpOrdered {
  type: 'TopUpOrdered';
  data: {
    tradeNo: string;
    userId: number;
    username: string;
    amount: number;
    quota: number;
    money: number;
    paymentMethod: PaymentMethod;
    createdTime: number;
  };
}

/** The gateway's signed callback reported the order paid with exactly its money. */
export interface TopUpPaid {
  type: 'TopUpPaid';
  data: { money: number; gatewayTradeNo: string; paidTime: number };
}

/** The gateway's signed callback reported a payment whose money differs from the order's: nothing is credited. */
export interface TopUpFailed {
  type: 'TopUpFailed';
  data: { reason: 'money_mismatch'; money: number; gatewayTradeNo: string; failedTime: number };
}

export type TopUpEvent = TopUpOrdered | TopUpPaid | TopUpFailed;

/** Order statuses as the history shows them: new-api's `pending`/`success`, and `failed` (ours). */
export const TopUpStatus = { Pending: 'pending', Success: 'success', Failed: 'failed' } as const;
export type TopUpStatusValue = (typeof TopUpStatus)[keyof typeof TopUpStatus];
