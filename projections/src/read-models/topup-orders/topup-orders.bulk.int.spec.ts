import { topUpStream } from '#server/ledger/streams';
import { decide, evolve, initialTopUpState, type TopUpCommand } from '#server/modules/topups/topup.decider';
import { toNewTopUpEvent } from '#server/modules/topups/topup-event-codec';
import { describeBulkEquivalence } from '../../../test/bulk-equivalence';
import { decidedStream } from '../../../test/decided-stream';
import { BASE_TIME, LedgerBuilder } from '../../../test/mixed-ledger';
import { TopUpOrdersProjection } from './topup-orders.projection';

const projection = new TopUpOrdersProjection();
const aggregate = { decide, evolve, initial: initialTopUpState, encode: toNewTopUpEvent };

describeBulkEquivalence(projection, ['topup_orders'], (context) => {
  it('given orders paid, failed on other money and left pending, interleaved, then both give the same rows, ids the orders’ positions', async () => {
    const b = new LedgerBuilder('orders');
    const order = (tradeNo: string, userId: number, money: number): TopUpCommand => ({
      type: 'PlaceTopUpOrder',
      tradeNo,
      userId,
      username: `user${userId}`,
      amount: Math.round(money),
      quota: Math.round(money) * 500_000,
      money,
      paymentMethod: 'zfb',
      createdTime: BASE_TIME,
    });
    const pay = (money: number, at: number): TopUpCommand => ({
      type: 'ConfirmTopUpPayment',
      money,
      gatewayTradeNo: `G${at}`,
      paidTime: BASE_TIME + at,
    });
    const [paid, failed, pending] = ['USR1NOaaaa1', 'USR2NObbbb1', 'USR1NOcccc1'].map((tradeNo) =>
      decidedStream(b, topUpStream(tradeNo), aggregate),
    );
    const events = [
      ...paid(order('USR1NOaaaa1', 1, 73)),
      ...failed(order('USR2NObbbb1', 2, 14.6)),
      ...paid(pay(73, 5)),
      ...pending(order('USR1NOcccc1', 1, 7.3)),
      ...failed(pay(0.01, 6)),
    ];
    expect(events.map((event) => event.type)).toEqual(['TopUpOrdered', 'TopUpOrdered', 'TopUpPaid', 'TopUpOrdered', 'TopUpFailed']);
    await context.expectSameRows(events, 1);
    const rows = await context.bulk.query(
      'SELECT trade_no, id::int, status, money, paid_money, complete_time::int, revision FROM topup_orders ORDER BY id',
    );
    expect(rows).toEqual([
      {
        trade_no: 'USR1NOaaaa1',
        id: events[0].position,
        status: 'success',
        money: 73,
        paid_money: 73,
        complete_time: BASE_TIME + 5,
        revision: 1,
      },
      {
        trade_no: 'USR2NObbbb1',
        id: events[1].position,
        status: 'failed',
        money: 14.6,
        paid_money: 0.01,
        complete_time: BASE_TIME + 6,
        revision: 1,
      },
      { trade_no: 'USR1NOcccc1', id: events[3].position, status: 'pending', money: 7.3, paid_money: 0, complete_time: 0, revision: 0 },
    ]);
  });
});
