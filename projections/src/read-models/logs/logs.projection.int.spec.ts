import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { compareTables, snapshotTables } from '#test/support/compare-tables';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { dataSourceOptions } from '#server/infrastructure/database/data-source';
import { eventMetadata, systemActor } from '#server/ledger/event-envelope';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { accountStream } from '#server/ledger/streams';
import { LOGS_STREAM } from '#server/modules/logs/logs.events';
import { type LogRow, toLogJson } from '#server/modules/logs/log.serializer';
import type { QuotaConsumedData } from '#server/modules/accounts/index';
import { AccountBalancesProjection } from '../account-balances/account-balances.projection';
import { LogsProjection } from './logs.projection';

const display = { inCurrency: true, quotaPerUnit: 500000 };
const BASE = 1_732_400_000;

function consumed(userId: number, i: number, overrides: Partial<QuotaConsumedData> = {}): Record<string, unknown> {
  return {
    requestId: `req-${userId}-${i}`,
    userId,
    tokenId: 100 + userId,
    tokenName: `tok-${userId}`,
    group: 'default',
    modelName: i % 2 ? 'gpt-4o' : 'gpt-4o-mini',
    upstreamModel: i % 2 ? 'gpt-4o' : 'gpt-4o-mini',
    channelId: 3,
    channelName: 'c3',
    channelPath: [2, 3],
    relayMode: 'chat',
    promptTokens: 10 * i,
    completionTokens: i,
    cachedTokens: 0,
    modelRatio: 1.25,
    completionRatio: 4,
    groupRatio: 1,
    modelPrice: -1,
    quota: 100 + i,
    tokenUnlimited: false,
    isStream: i % 3 === 0,
    useTimeSeconds: 1,
    firstTokenMs: 250,
    content: '模型倍率 1.25，补全倍率 4.00，分组倍率 1.00',
    other: {},
    createdAt: BASE + i * 10,
    username: `user${userId}`,
    quotaDisplay: display,
    ...overrides,
  };
}

/** A small ledger: grants, charges for two users, an admin edit, a purge in the middle, more charges after it. */
function ledger(): RecordedEvent[] {
  const raw: Array<{ streamId: string; type: string; data: Record<string, unknown> }> = [
    {
      streamId: accountStream(1),
      type: 'QuotaGranted',
      data: { amount: 5000, kind: 'new_user', username: 'user1', quotaDisplay: display },
    },
    {
      streamId: accountStream(2),
      type: 'QuotaGranted',
      data: { amount: 9000, kind: 'new_user', username: 'user2', quotaDisplay: display },
    },
    ...[1, 2, 3].map((i) => ({ streamId: accountStream(1), type: 'QuotaConsumed', data: consumed(1, i) })),
    ...[1, 2].map((i) => ({ streamId: accountStream(2), type: 'QuotaConsumed', data: consumed(2, i) })),
    {
      streamId: accountStream(2),
      type: 'QuotaAdjustedByAdmin',
      data: { before: 8797, after: 100, adminId: 1, username: 'user2', quotaDisplay: display },
    },
    { streamId: LOGS_STREAM, type: 'LogsPurged', data: { before: BASE + 25, adminId: 1 } },
    ...[4, 5].map((i) => ({ streamId: accountStream(1), type: 'QuotaConsumed', data: consumed(1, i) })),
    // Admitted before the purge's timestamp but settled after it: the purge has passed, the row stays.
    { streamId: accountStream(2), type: 'QuotaConsumed', data: consumed(2, 0, { createdAt: BASE }) },
  ];
  const revisions = new Map<string, number>();
  return raw.map((event, index) => {
    const revision = (revisions.get(event.streamId) ?? -1) + 1;
    revisions.set(event.streamId, revision);
    return {
      id: randomUUID(),
      streamId: event.streamId,
      revision,
      position: index + 1,
      type: event.type,
      data: event.data,
      metadata: eventMetadata({ correlationId: `c-${index}`, reasonCode: 'test', actor: systemActor() }),
      createdAt: new Date((BASE + 1000 + index) * 1000),
    };
  });
}

describe('logs and account-balances projections over relay charges', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  const logs = new LogsProjection();
  // apply() uses neither the admission service nor the data source (afterCommit does: test/e2e/admission-bases.spec.ts).
  const balances = new AccountBalancesProjection(null as never, null as never);
  const TABLES = ['logs', 'log_purges', 'account_balances'];

  const applyAll = async (events: RecordedEvent[]) => {
    await dataSource.transaction(async (manager) => {
      for (const event of events) {
        for (const projection of [logs, balances]) {
          if ((projection.handles as readonly string[]).includes(event.type)) await projection.apply(event, manager);
        }
      }
    });
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = new DataSource({ ...dataSourceOptions(database.url), extra: { max: 2 } });
    await dataSource.initialize();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  beforeEach(async () => {
    await dataSource.query('TRUNCATE logs, log_purges, account_balances');
  });

  it('folds QuotaConsumed into type 2 rows and balances, and a purge into a delete with its count', async () => {
    const events = ledger();
    await applyAll(events);

    const rows: Array<Record<string, unknown>> = await dataSource.query('SELECT * FROM logs ORDER BY id');
    // Purged: user1 charges 1, 2 (created_at BASE+10, +20) and user2 charge 1 (+10) and 2 (+20); the grants are
    // older still (their created_at is the ledger time BASE+1000…, which is after the purge's timestamp: kept).
    expect(rows.map((row) => [Number(row.id), Number(row.type), Number(row.user_id), Number(row.created_at)])).toEqual([
      [1, 4, 1, BASE + 1000],
      [2, 4, 2, BASE + 1001],
      [5, 2, 1, BASE + 30],
      [8, 3, 2, BASE + 1007],
      [10, 2, 1, BASE + 40],
      [11, 2, 1, BASE + 50],
      [12, 2, 2, BASE],
    ]);
    const charge = rows.find((row) => Number(row.id) === 5)!;
    // The wording is not stored (the row's consume columns give it back; the API derives it); `other` is, as the
    // request tried two channels, which the columns do not hold.
    expect(charge.content).toBeNull();
    expect(charge.other).toEqual(expect.any(String));
    expect(toLogJson(charge as unknown as LogRow)).toMatchObject({
      content: '模型倍率 1.25，补全倍率 4.00，分组倍率 1.00',
      other:
        '{"admin_info":{"use_channel":["2","3"]},"cache_tokens":0,"completion_ratio":4,"frt":250,"group_ratio":1,"model_price":-1,"model_ratio":1.25}',
    });
    expect(charge).toMatchObject({
      username: 'user1',
      token_name: 'tok-1',
      model_name: 'gpt-4o',
      prompt_tokens: 30,
      completion_tokens: 3,
      use_time: 1,
      is_stream: true,
      channel_id: 3,
      token_id: 101,
      group: 'default',
    });
    expect(Number(charge.quota)).toBe(103);

    const purges: Array<Record<string, string>> = await dataSource.query('SELECT * FROM log_purges');
    expect(purges.map((row) => [Number(row.target_timestamp), Number(row.deleted), Number(row.admin_id)])).toEqual([[BASE + 25, 4, 1]]);

    const accounts: Array<Record<string, string>> = await dataSource.query(
      'SELECT user_id, quota, used_quota, request_count, revision FROM account_balances ORDER BY user_id',
    );
    // user1: 5000 − (101+102+103+104+105) = 4485, five requests; user2: 9000 − 203 = 8797, then set to 100, then −100.
    expect(accounts.map((row) => Object.values(row).map(Number))).toEqual([
      [1, 4485, 515, 5, 5],
      [2, 0, 303, 3, 4],
    ]);
  });

  it('replays deterministically: the same events give the same rows, ids included', async () => {
    const events = ledger();
    await applyAll(events);
    const live = await snapshotTables(dataSource, TABLES);
    await dataSource.query('TRUNCATE logs, log_purges, account_balances');
    await applyAll(events);
    const comparison = await compareTables(live, dataSource, TABLES);
    expect(comparison.summary).toMatch(/^equal/);
    expect(live.logs).toHaveLength(7);
  });

  it('writes no type 2 row for a charge settled while LogConsumeEnabled was off, and still charges it', async () => {
    const events = ledger().map((event) =>
      event.type === 'QuotaConsumed' && (event.data as { requestId: string }).requestId === 'req-1-4'
        ? { ...event, data: { ...event.data, logConsume: false } }
        : event.type === 'QuotaConsumed' && (event.data as { requestId: string }).requestId === 'req-1-5'
          ? { ...event, data: { ...event.data, logConsume: true } }
          : event,
    );
    await applyAll(events);
    const rows: Array<{ id: string; type: number }> = await dataSource.query('SELECT id, type FROM logs WHERE type = 2 ORDER BY id');
    // Position 10 (req-1-4) is not logged; 11 (logConsume true) and 12 (written before the flag existed) are.
    expect(rows.map((row) => Number(row.id))).toEqual([5, 11, 12]);
    const [user1]: Array<{ quota: string; request_count: string }> = await dataSource.query(
      'SELECT quota, request_count FROM account_balances WHERE user_id = 1',
    );
    expect([Number(user1.quota), Number(user1.request_count)]).toEqual([4485, 5]);
    const live = await snapshotTables(dataSource, TABLES);
    await dataSource.query('TRUNCATE logs, log_purges, account_balances');
    await applyAll(events);
    expect((await compareTables(live, dataSource, TABLES)).summary).toMatch(/^equal/);
  });

  it('applies each event once even when handed it twice (a hand-run replay)', async () => {
    const events = ledger();
    await applyAll(events);
    const once = await snapshotTables(dataSource, TABLES);
    await applyAll(events);
    expect((await compareTables(once, dataSource, TABLES)).equal).toBe(true);
  });
});
