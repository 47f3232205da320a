import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { dataSourceOptions } from '#server/infrastructure/database/data-source';
import { eventMetadata, systemActor } from '#server/ledger/event-envelope';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { accountStream, tokenStream } from '#server/ledger/streams';
import { ChannelStatusProjection } from '../channel-status/channel-status.projection';
import { applyChannelUsage, emptyChannelStatus } from '../channel-status/channel-status-fold';
import { applyAllotment, applyConsumption, emptyTokenBalance, type TokenBalance } from './token-balance';
import { TokenBalancesProjection } from './token-balances.projection';

const BASE = 1_732_500_000;

/**
 * The hot QuotaConsumed folds of token_balances and channel_status are single SQL statements (no read first).
 * They must write exactly what the pure folds (applyConsumption, applyChannelUsage) give, whatever the row held
 * before, including no row at all, and skip an event handed to them twice.
 */
describe('single-statement charge folds (token_balances, channel_status)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  // apply() uses neither the admission service nor the data source (afterCommit does).
  const tokens = new TokenBalancesProjection(null as never, null as never);
  const channels = new ChannelStatusProjection();

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = new DataSource({ ...dataSourceOptions(database.url), extra: { max: 2 } });
    await dataSource.initialize();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  const recorded = (position: number, streamId: string, type: string, data: Record<string, unknown>): RecordedEvent => ({
    id: randomUUID(),
    streamId,
    revision: position,
    position,
    type,
    data,
    metadata: eventMetadata({ correlationId: `c-${position}`, reasonCode: 'test', actor: systemActor() }),
    createdAt: new Date((BASE + position) * 1000),
  });
  const charge = (position: number, tokenId: number, quota: number, unlimited = false, channelId = 9) =>
    recorded(position, accountStream(5), 'QuotaConsumed', {
      requestId: `r-${position}`,
      userId: 5,
      tokenId,
      quota,
      tokenUnlimited: unlimited,
      channelId,
    });

  it('gives the pure folds’ rows, from no row, after an allotment, for unlimited charges, and applies each event once', async () => {
    const events = [
      charge(1, 41, 30), // no row yet: starts from the empty balance
      recorded(2, tokenStream(41), 'TokenQuotaAllotted', { userId: 5, remainQuota: 1000, unlimited: false, before: null }),
      charge(3, 41, 120),
      charge(4, 41, 50, true), // unlimited when admitted: used, not spent
      charge(5, 42, 7),
    ];
    await dataSource.transaction(async (manager) => {
      for (const event of [...events, events[2]]) {
        await tokens.apply(event, manager);
        if (event.type === 'QuotaConsumed') await channels.apply(event, manager);
      }
    });

    const expected = new Map<number, TokenBalance>();
    for (const event of events) {
      if (event.type === 'TokenQuotaAllotted') {
        expected.set(41, applyAllotment(expected.get(41) ?? emptyTokenBalance, event.data as never));
      } else {
        const data = event.data as { tokenId: number; quota: number; tokenUnlimited: boolean };
        expected.set(
          data.tokenId,
          applyConsumption(
            expected.get(data.tokenId) ?? emptyTokenBalance,
            5,
            { tokenId: data.tokenId, quota: data.quota, unlimited: data.tokenUnlimited },
            BASE + event.position,
          ),
        );
      }
    }
    const rows: Array<Record<string, string>> = await dataSource.query(
      'SELECT token_id, user_id, remain_quota, used_quota, accessed_time, position FROM token_balances ORDER BY token_id',
    );
    expect(rows.map((row) => Object.values(row).map(Number))).toEqual([
      [41, expected.get(41)!.userId, expected.get(41)!.remainQuota, expected.get(41)!.usedQuota, expected.get(41)!.accessedTime, 4],
      [42, expected.get(42)!.userId, expected.get(42)!.remainQuota, expected.get(42)!.usedQuota, expected.get(42)!.accessedTime, 5],
    ]);
    expect(expected.get(41)).toEqual({ userId: 5, remainQuota: 880, usedQuota: 200, accessedTime: BASE + 4 });

    const [status]: Array<Record<string, unknown>> = await dataSource.query('SELECT * FROM channel_status WHERE channel_id = 9');
    const figures = [30, 120, 50, 7].reduce((state, quota) => applyChannelUsage(state, quota), emptyChannelStatus);
    expect(Number(status.used_quota)).toBe(figures.usedQuota);
    expect(Number(status.used_quota)).toBe(207);
    expect(Number(status.position)).toBe(5);
    expect(status).toMatchObject({ status: emptyChannelStatus.status, response_time: emptyChannelStatus.responseTime });
  });
});
