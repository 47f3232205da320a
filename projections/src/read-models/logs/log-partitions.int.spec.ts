import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { compareTables, snapshotTables } from '#test/support/compare-tables';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { dataSourceOptions } from '#server/infrastructure/database/data-source';
import { eventMetadata, systemActor } from '#server/ledger/event-envelope';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { accountStream } from '#server/ledger/streams';
import { LOGS_STREAM } from '#server/modules/logs/logs.events';
import { LAST_MONTH_END, logMonthOf, logPartitions } from './log-partitions';
import { LogsProjection } from './logs.projection';

const utc = (year: number, month: number, day = 1, hour = 0) => Date.UTC(year, month - 1, day, hour) / 1000;
const NOV_1 = utc(2024, 11);
const DEC_1 = utc(2024, 12);
const JAN_1 = utc(2025, 1);
const JAN_15 = utc(2025, 1, 15);
const FEB_1 = utc(2025, 2);

describe('logMonthOf', () => {
  it('names the UTC calendar month and gives its bounds, December rolling into January', () => {
    expect(logMonthOf(DEC_1 - 1)).toEqual({ name: 'logs_p202411', from: NOV_1, to: DEC_1 });
    expect(logMonthOf(DEC_1)).toEqual({ name: 'logs_p202412', from: DEC_1, to: JAN_1 });
    expect(logMonthOf(JAN_1 - 1)?.to).toBe(JAN_1);
    expect(logMonthOf(0)).toEqual({ name: 'logs_p197001', from: 0, to: utc(1970, 2) });
  });

  it('sends what no month covers to the default partition', () => {
    for (const outside of [-1, LAST_MONTH_END, Number.MAX_SAFE_INTEGER, 1.5]) expect(logMonthOf(outside)).toBeNull();
    expect(logMonthOf(LAST_MONTH_END - 1)?.name).toBe('logs_p999912');
  });
});

let position = 0;
function event(streamId: string, type: string, data: Record<string, unknown>): RecordedEvent {
  position += 1;
  return {
    id: randomUUID(),
    streamId,
    revision: position,
    position,
    type,
    data,
    metadata: eventMetadata({ correlationId: `c-${position}`, reasonCode: 'test', actor: systemActor() }),
    createdAt: new Date((FEB_1 + 86_400 + position) * 1000),
  };
}

function charge(userId: number, createdAt: number, quota: number): RecordedEvent {
  return event(accountStream(userId), 'QuotaConsumed', {
    requestId: `req-${position}`,
    userId,
    tokenId: 10 + userId,
    tokenName: `tok-${userId}`,
    group: 'default',
    modelName: 'gpt-4o-mini',
    upstreamModel: 'gpt-4o-mini',
    channelId: 3,
    channelPath: [3],
    promptTokens: 10,
    completionTokens: 5,
    cachedTokens: 0,
    modelRatio: 0.075,
    completionRatio: 4,
    groupRatio: 1,
    modelPrice: -1,
    quota,
    isStream: false,
    useTimeSeconds: 1,
    createdAt,
    username: `user${userId}`,
  });
}

const retention = (before: number, retentionDays: number) => event(LOGS_STREAM, 'LogsRetentionApplied', { before, retentionDays });

describe('logs projection over monthly partitions', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  const projection = new LogsProjection();

  const applyEach = (events: RecordedEvent[]) =>
    dataSource.transaction(async (manager) => {
      for (const one of events) await projection.apply(one, manager);
    });
  const applyBatch = (events: RecordedEvent[]) => dataSource.transaction((manager) => projection.applyBatch(events, manager));
  const partitionNames = async () => (await logPartitions(dataSource.manager)).map((partition) => partition.name);
  const rows = async (): Promise<Array<[number, number, string]>> =>
    (await dataSource.query('SELECT id, created_at, tableoid::regclass::text AS partition FROM logs ORDER BY id')).map(
      (row: { id: string; created_at: string; partition: string }) => [Number(row.id), Number(row.created_at), row.partition],
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

  it('creates a month partition before writing its first row (one at a time and in a batch), only the months written', async () => {
    expect(await partitionNames()).toEqual(['logs_default']);
    const first = charge(1, NOV_1 + 10, 100);
    await applyEach([first]);
    expect(await partitionNames()).toEqual(['logs_p202411', 'logs_default']);
    // A batch crossing into a new year: December's last second and January's first.
    const batch = [charge(1, JAN_1 - 1, 101), charge(2, JAN_1, 102), charge(2, JAN_15 + 5, 103)];
    await applyBatch(batch);
    expect(await partitionNames()).toEqual(['logs_p202411', 'logs_p202412', 'logs_p202501', 'logs_default']);
    expect(await rows()).toEqual([
      [first.position, NOV_1 + 10, 'logs_p202411'],
      [batch[0].position, JAN_1 - 1, 'logs_p202412'],
      [batch[1].position, JAN_1, 'logs_p202501'],
      [batch[2].position, JAN_15 + 5, 'logs_p202501'],
    ]);
  });

  it('creates the partition again when the transaction that created it rolled back', async () => {
    const february = charge(3, FEB_1 + 100, 104);
    await expect(
      dataSource.transaction(async (manager) => {
        // The second event of the month finds the partition the first created, in this same transaction.
        await projection.apply(charge(3, FEB_1 + 50, 1), manager);
        await projection.apply(february, manager);
        throw new Error('the batch fails after the row');
      }),
    ).rejects.toThrow('the batch fails');
    expect(await partitionNames()).not.toContain('logs_p202502');
    await applyEach([february]);
    expect(await partitionNames()).toContain('logs_p202502');
    expect((await rows()).at(-1)).toEqual([february.position, FEB_1 + 100, 'logs_p202502']);
  });

  it('applies a retention purge: months wholly before the cut-off dropped, the boundary month cut, the count recorded', async () => {
    const before = await rows();
    const purge = retention(JAN_15, 30);
    await applyEach([purge]);
    // November and December lie wholly before January 15: dropped; January keeps its rows from the 15th on.
    expect(await partitionNames()).toEqual(['logs_p202501', 'logs_p202502', 'logs_default']);
    expect(await rows()).toEqual(before.filter(([, createdAt]) => (createdAt as number) >= JAN_15));
    const purges: Array<Record<string, string>> = await dataSource.query('SELECT * FROM log_purges');
    expect(
      purges.map((row) => [row.event_id, Number(row.position), Number(row.target_timestamp), Number(row.deleted), row.admin_id]),
    ).toEqual([[purge.id, purge.position, JAN_15, before.filter(([, createdAt]) => (createdAt as number) < JAN_15).length, 0]]);
  });

  it('writes a row settled after the purge for a month it dropped (its partition comes back), like an unpartitioned table', async () => {
    const late = charge(1, NOV_1 + 20, 105);
    await applyEach([late]);
    expect(await partitionNames()).toContain('logs_p202411');
    expect((await rows()).at(-1)).toEqual([late.position, NOV_1 + 20, 'logs_p202411']);
  });

  it('rebuilds equal to live: the same events replayed (one at a time, then in one batch) give the same rows and purges', async () => {
    position = 1000;
    const ledger = [
      charge(1, NOV_1 + 1, 1),
      charge(2, DEC_1 + 2, 2),
      charge(1, JAN_1 + 3, 3),
      event(accountStream(2), 'QuotaGranted', {
        amount: 500,
        kind: 'new_user',
        username: 'user2',
        quotaDisplay: { inCurrency: false, quotaPerUnit: 500000 },
      }),
      retention(DEC_1 + 10, 45),
      charge(2, DEC_1 + 5, 4),
      charge(1, JAN_15 + 1, 5),
      event(LOGS_STREAM, 'LogsPurged', { before: JAN_1 + 4, adminId: 1 }),
      charge(2, FEB_1 + 6, 6),
    ];
    await dataSource.query('TRUNCATE logs, log_purges');
    await applyEach(ledger);
    const live = await snapshotTables(dataSource, ['logs', 'log_purges']);
    const livePartitions = await partitionNames();
    // Left: the grant (its ledger time is in February), 5 and 6; 4 came after the retention but the purge took it.
    expect(live.logs).toHaveLength(3);
    for (const replay of [applyEach, applyBatch]) {
      await dataSource.query('TRUNCATE logs, log_purges');
      await replay(ledger);
      expect((await compareTables(live, dataSource, ['logs', 'log_purges'])).summary).toMatch(/^equal/);
      expect(await partitionNames()).toEqual(livePartitions);
    }
  });
});
