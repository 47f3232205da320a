import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { dataSourceOptions } from '#server/infrastructure/database/data-source';
import { eventMetadata, systemActor } from '#server/ledger/event-envelope';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { topUpStream } from '#server/ledger/streams';
import { TopUpOrdersProjection } from './topup-orders.projection';

const BASE = 1_732_400_000;
const ordered = (tradeNo: string, userId: number, money: number) => ({
  streamId: topUpStream(tradeNo),
  type: 'TopUpOrdered',
  data: { tradeNo, userId, username: `user${userId}`, amount: 10, quota: 5_000_000, money, paymentMethod: 'zfb', createdTime: BASE },
});

/** Two orders interleaved: one paid, one failed on other money, and a third left pending. */
function ledger(): RecordedEvent[] {
  const raw = [
    ordered('USR1NOaaaaaa1', 1, 73),
    ordered('USR2NObbbbbb1', 2, 14.6),
    { streamId: topUpStream('USR1NOaaaaaa1'), type: 'TopUpPaid', data: { money: 73, gatewayTradeNo: 'G1', paidTime: BASE + 5 } },
    {
      streamId: topUpStream('USR2NObbbbbb1'),
      type: 'TopUpFailed',
      data: { reason: 'money_mismatch', money: 0.01, gatewayTradeNo: 'G2', failedTime: BASE + 6 },
    },
    ordered('USR1NOcccccc1', 1, 7.3),
  ];
  const revisions = new Map<string, number>();
  return raw.map((event, index) => {
    const revision = (revisions.get(event.streamId) ?? -1) + 1;
    revisions.set(event.streamId, revision);
    return {
      id: randomUUID(),
      streamId: event.streamId,
      revision,
      position: 10 + index,
      type: event.type,
      data: event.data,
      metadata: eventMetadata({ correlationId: `c-${index}`, reasonCode: 'test', actor: systemActor() }),
      createdAt: new Date((BASE + index) * 1000),
    };
  });
}

describe('topup-orders projection', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  const projection = new TopUpOrdersProjection();

  const applyAll = (events: RecordedEvent[]) =>
    dataSource.transaction(async (manager) => {
      for (const event of events) await projection.apply(event, manager);
    });
  const rows = (): Promise<Array<Record<string, unknown>>> =>
    dataSource.query(
      'SELECT trade_no, id, user_id, status, money, paid_money, gateway_trade_no, complete_time, revision FROM topup_orders ORDER BY id',
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = new DataSource({ ...dataSourceOptions(database.url), extra: { max: 2 } });
    await dataSource.initialize();
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('folds each order stream into one row whose id is its TopUpOrdered position; a replayed event changes nothing', async () => {
    const events = ledger();
    await applyAll(events);
    const expected = [
      {
        trade_no: 'USR1NOaaaaaa1',
        id: '10',
        user_id: 1,
        status: 'success',
        money: 73,
        paid_money: 73,
        gateway_trade_no: 'G1',
        complete_time: String(BASE + 5),
        revision: 1,
      },
      {
        trade_no: 'USR2NObbbbbb1',
        id: '11',
        user_id: 2,
        status: 'failed',
        money: 14.6,
        paid_money: 0.01,
        gateway_trade_no: 'G2',
        complete_time: String(BASE + 6),
        revision: 1,
      },
      {
        trade_no: 'USR1NOcccccc1',
        id: '14',
        user_id: 1,
        status: 'pending',
        money: 7.3,
        paid_money: 0,
        gateway_trade_no: '',
        complete_time: '0',
        revision: 0,
      },
    ];
    expect(await rows()).toEqual(expected);

    // A hand-run replay of everything: the revision guard keeps every row as it is.
    await applyAll(events);
    expect(await rows()).toEqual(expected);
  });

  it('ignores events of other streams', async () => {
    await dataSource.query('TRUNCATE topup_orders');
    const [first] = ledger();
    await applyAll([{ ...first, streamId: 'account-1' }]);
    expect(await rows()).toEqual([]);
  });
});
