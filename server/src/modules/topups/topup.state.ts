import { type PaymentMethod, type TopUpEvent, TopUpStatus, type TopUpStatusValue } from './topup.events';

/** One top-up order, folded from its stream (the topup_orders read model stores exactly this). */
export interface TopUpState {
  ordered: boolean;
  tradeNo: string;
  userId: number;
  username: string;
  amount: number;
  quota: number;
  money: number;
  paymentMethod: PaymentMethod | '';
  createdTime: number;
  status: TopUpStatusValue;
  /** The money the gateway reported (0 until a callback settled the order). */
  paidMoney: number;
  gatewayTradeNo: string;
  /** When the order was paid or failed (0 while pending). */
  completedTime: number;
}

export const initialTopUpState: TopUpState = Object.freeze({
  ordered: false,
  tradeNo: '',
  userId: 0,
  username: '',
  amount: 0,
  quota: 0,
  money: 0,
  paymentMethod: '',
  createdTime: 0,
  status: TopUpStatus.Pending,
  paidMoney: 0,
  gatewayTradeNo: '',
  completedTime: 0,
});

/** Pure: the state after `event`. */
export function evolve(state: TopUpState, event: TopUpEvent): TopUpState {
  switch (event.type) {
    case 'TopUpOrdered':
      return { ...initialTopUpState, ...event.data, ordered: true };
    case 'TopUpPaid':
      return {
        ...state,
        status: TopUpStatus.Success,
        paidMoney: event.data.money,
        gatewayTradeNo: event.data.gatewayTradeNo,
        completedTime: event.data.paidTime,
      };
    case 'TopUpFailed':
      return {
        ...state,
        status: TopUpStatus.Failed,
        paidMoney: event.data.money,
        gatewayTradeNo: event.data.gatewayTradeNo,
        completedTime: event.data.failedTime,
      };
    default:
      return assertNever(event);
  }
}

export function fold(events: readonly TopUpEvent[], state: TopUpState = initialTopUpState): TopUpState {
  return events.reduce(evolve, state);
}

function assertNever(event: never): never {
  throw new Error(`Unhandled top-up event ${JSON.stringify(event)}`);
}
