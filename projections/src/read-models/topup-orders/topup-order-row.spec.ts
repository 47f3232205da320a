import type { RecordedEvent } from '#server/ledger/event-store.port';
import { topUpStream } from '#server/ledger/streams';
import type { TopUpEvent } from '#server/modules/topups/topup.events';
import { topUpOrderOnConflict, topUpOrderRowAfter } from './topup-order-row';

const recorded = (revision: number, position: number) =>
  ({ streamId: topUpStream('T1'), revision, position, createdAt: new Date(0) }) as unknown as RecordedEvent;
const ordered = (userId: number, money: number): TopUpEvent => ({
  type: 'TopUpOrdered',
  data: {
    tradeNo: 'T1',
    userId,
    username: `user${userId}`,
    amount: money,
    quota: money * 10,
    money,
    paymentMethod: 'wx',
    createdTime: 100,
  },
});
const paid: TopUpEvent = { type: 'TopUpPaid', data: { money: 5, gatewayTradeNo: 'G', paidTime: 200 } };

describe('topup order row', () => {
  it('writes nothing for a settlement without its order, nor for an event the row already holds', () => {
    expect(topUpOrderRowAfter(undefined, paid, recorded(1, 9))).toBeNull();
    const row = topUpOrderRowAfter(undefined, ordered(1, 5), recorded(0, 3))!;
    expect(topUpOrderRowAfter(row, paid, recorded(0, 3))).toBeNull();
    expect(topUpOrderRowAfter(row, paid, recorded(1, 4))).toMatchObject({
      id: 3,
      status: 'success',
      paid_money: 5,
      complete_time: 200,
      revision: 1,
    });
  });

  it('keeps the first order’s figures when an order is written again onto its trade number, as the upsert’s ON CONFLICT does', () => {
    const first = topUpOrderRowAfter(undefined, ordered(1, 5), recorded(0, 3))!;
    const again = topUpOrderRowAfter(first, ordered(2, 7), recorded(1, 8))!;
    expect(again).toMatchObject({ id: 3, user_id: 2, money: 7 });
    expect(topUpOrderOnConflict(first, again)).toEqual({ ...first, revision: 1 });
  });
});
