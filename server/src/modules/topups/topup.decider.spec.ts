import { deciderSpec } from '#test/support/decider-spec';
import { decide, evolve, initialTopUpState, InvalidTopUpAmountError } from './topup.decider';
import { TradeNumberTakenError } from './topup.errors';
import type { TopUpEvent } from './topup.events';

const { given } = deciderSpec({ decide, evolve, initialState: initialTopUpState });

const order = {
  tradeNo: 'USR3NOabc1231700000000',
  userId: 3,
  username: 'carol',
  amount: 10,
  quota: 5_000_000,
  money: 73,
  paymentMethod: 'zfb',
  createdTime: 1_700_000_000,
} as const;
const place = { type: 'PlaceTopUpOrder', ...order } as const;
const ordered: TopUpEvent = { type: 'TopUpOrdered', data: { ...order } };
const confirm = (money: number) => ({ type: 'ConfirmTopUpPayment', money, gatewayTradeNo: 'G1', paidTime: 1_700_000_100 }) as const;
const paid: TopUpEvent = { type: 'TopUpPaid', data: { money: 73, gatewayTradeNo: 'G1', paidTime: 1_700_000_100 } };
const failed: TopUpEvent = {
  type: 'TopUpFailed',
  data: { reason: 'money_mismatch', money: 0.01, gatewayTradeNo: 'G1', failedTime: 1_700_000_100 },
};

describe('top-up order decider', () => {
  it('places an order on a new stream; the same trade number twice is refused', () => {
    given([]).when(place).then([ordered]);
    given([ordered]).when(place).thenThrows(TradeNumberTakenError, '订单号冲突，请重试');
    expect(given([ordered]).state).toMatchObject({ ordered: true, status: 'pending', quota: 5_000_000, money: 73, paidMoney: 0 });
  });

  it('refuses amounts the ledger cannot hold (the input layer never sends them)', () => {
    given([])
      .when({ ...place, quota: 0 })
      .thenThrows(InvalidTopUpAmountError);
    given([])
      .when({ ...place, quota: 2 ** 53 })
      .thenThrows(InvalidTopUpAmountError);
    given([])
      .when({ ...place, amount: -1 })
      .thenThrows(InvalidTopUpAmountError);
    given([])
      .when({ ...place, money: Number.NaN })
      .thenThrows(InvalidTopUpAmountError);
  });

  it('a callback paying exactly the order money pays it; the fold records the money and the time', () => {
    given([ordered]).when(confirm(73)).then([paid]);
    // The gateway reports "73.00": equal to the cent.
    given([ordered])
      .when(confirm(73.0000001))
      .then([{ type: 'TopUpPaid', data: { ...paid.data, money: 73.0000001 } }]);
    expect(given([ordered, paid]).state).toMatchObject({
      status: 'success',
      paidMoney: 73,
      gatewayTradeNo: 'G1',
      completedTime: 1_700_000_100,
    });
  });

  it('a callback with other money fails the order and credits nothing (new-api did not compare)', () => {
    given([ordered]).when(confirm(0.01)).then([failed]);
    given([ordered])
      .when(confirm(73.01))
      .then([{ type: 'TopUpFailed', data: { ...failed.data, money: 73.01 } }]);
    expect(given([ordered, failed]).state).toMatchObject({ status: 'failed', paidMoney: 0.01 });
  });

  it('a settled order ignores every later callback, and an unknown order ignores them all', () => {
    given([ordered, paid]).when(confirm(73)).then([]);
    given([ordered, paid]).when(confirm(1)).then([]);
    given([ordered, failed]).when(confirm(73)).then([]);
    given([]).when(confirm(73)).then([]);
  });
});
