import { TradeNumberTakenError } from './topup.errors';
import { type PaymentMethod, type TopUpEvent, TopUpStatus } from './topup.events';
import type { TopUpState } from './topup.state';

export type TopUpCommand =
  | {
      type: 'PlaceTopUpOrder';
      tradeNo: string;
      userId: number;
      username: string;
      amount: number;
      quota: number;
      money: number;
      paymentMethod: PaymentMethod;
      createdTime: number;
    }
  | { type: 'ConfirmTopUpPayment'; money: number; gatewayTradeNo: string; paidTime: number };

/** A programming error: the input layer refuses amounts that are not positive safe integers or money that is not finite. */
export class InvalidTopUpAmountError extends Error {
  readonly code = 'invalid_topup_amount';
  constructor(field: string, value: unknown) {
    super(`Invalid top-up ${field} ${String(value)}`);
  }
}

/** Money in cents: the gateway is asked for 2 decimals and reports what was paid as a decimal text. */
export const cents = (money: number): number => Math.round(money * 100);

/** Pure: the events a command produces on a `topup-order-{tradeNo}` stream. Throws a DomainError to refuse. */
export function decide(command: TopUpCommand, state: TopUpState): TopUpEvent[] {
  switch (command.type) {
    case 'PlaceTopUpOrder': {
      if (!Number.isSafeInteger(command.quota) || command.quota <= 0) throw new InvalidTopUpAmountError('quota', command.quota);
      if (!Number.isSafeInteger(command.amount) || command.amount <= 0) throw new InvalidTopUpAmountError('amount', command.amount);
      if (!Number.isFinite(command.money) || command.money <= 0) throw new InvalidTopUpAmountError('money', command.money);
      if (state.ordered) throw new TradeNumberTakenError();
      const { type: _type, ...data } = command;
      return [{ type: 'TopUpOrdered', data }];
    }
    case 'ConfirmTopUpPayment': {
      // An unknown order, or one a callback already settled: nothing to do (the gateway repeats its callbacks).
      if (!state.ordered || state.status !== TopUpStatus.Pending) return [];
      const { money, gatewayTradeNo, paidTime } = command;
      // new-api credited whatever the callback said was paid; here only the order's own money pays it.
      if (!Number.isFinite(money) || cents(money) !== cents(state.money)) {
        return [{ type: 'TopUpFailed', data: { reason: 'money_mismatch', money, gatewayTradeNo, failedTime: paidTime } }];
      }
      return [{ type: 'TopUpPaid', data: { money, gatewayTradeNo, paidTime } }];
    }
  }
}

// The fold lives in topup.state.ts (the read model folds with it too); re-exported for the handlers.
export { evolve, fold, initialTopUpState, type TopUpState } from './topup.state';
