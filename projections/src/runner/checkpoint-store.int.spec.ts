import { randomUUID } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { dataSourceOptions } from '#server/infrastructure/database/data-source';
import { newEvent, systemActor } from '#server/ledger/event-envelope';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { PostgresEventStore } from '#server/ledger/postgres/postgres-event-store';
import { CheckpointStore } from './checkpoint-store';
import { type Projection, ProjectionApplyError, ProjectionEventError } from './projection';
import { rebuildProjections } from './projection-rebuild';

/** Sums per stream, kept with one statement per batch; `apply` is the one-event yardstick. */
class BatchedTotalsProjection implements Projection {
  readonly name = 'batched_totals';
  readonly tables = ['batched_totals'];
  readonly handles = ['Credited', 'Debited'];
  readonly batches: number[][] = [];
  perEventCalls = 0;
  /** What applyBatch does wrong, if anything. */
  fault: 'none' | 'named' | 'sql' = 'none';
  /** An amount `apply` refuses (so the runner's replay finds the event). */
  refuse: number | null = null;

  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    this.perEventCalls++;
    if (Number(event.data.amount) === this.refuse) throw new Error(`amount ${this.refuse} refused`);
    await manager.query(
      `INSERT INTO batched_totals (stream_id, total) VALUES ($1, $2)
       ON CONFLICT (stream_id) DO UPDATE SET total = batched_totals.total + EXCLUDED.total`,
      [event.streamId, amountOf(event)],
    );
  }

  async applyBatch(events: readonly RecordedEvent[], manager: EntityManager): Promise<void> {
    this.batches.push(events.map((event) => event.position));
    if (this.fault === 'named') throw new ProjectionEventError(events[1], new Error('cannot decode'));
    await manager.query(
      `INSERT INTO batched_totals (stream_id, total)
       SELECT stream_id, sum(amount) FROM unnest($1::text[], $2::bigint[]) AS e(stream_id, amount) GROUP BY stream_id
       ON CONFLICT (stream_id) DO UPDATE SET total = batched_totals.total + EXCLUDED.total`,
      [events.map((event) => event.streamId), events.map((event) => (this.fault === 'sql' ? 'x' : amountOf(event)))],
    );
  }
}

/** Without applyBatch: the runner must keep calling apply per event. */
class CountsProjection implements Projection {
  readonly name = 'per_event_counts';
  readonly tables = ['per_event_counts'];
  readonly handles = ['Credited', 'Noted'];
  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    await manager.query(
      'INSERT INTO per_event_counts (type, count) VALUES ($1, 1) ON CONFLICT (type) DO UPDATE SET count = per_event_counts.count + 1',
      [event.type],
    );
  }
}

const amountOf = (event: RecordedEvent) => (event.type === 'Debited' ? -1 : 1) * Number(event.data.amount);
const event = (type: string, amount: number) =>
  newEvent(
    type,
    { amount },
    { id: randomUUID(), metadata: { correlationId: 'checkpoint-spec', reasonCode: 'test', actor: systemActor() } },
  );

describe('CheckpointStore.applyBatch with Projection.applyBatch', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;
  let dataSource: DataSource;
  let checkpoints: CheckpointStore;
  let batched: BatchedTotalsProjection;
  let counts: CountsProjection;
  let events: RecordedEvent[];

  const rows = async (table: string) => dataSource.query(`SELECT * FROM ${table} ORDER BY 1`) as Promise<Array<Record<string, string>>>;
  const stored = async () => checkpoints.load([batched.name, counts.name]);

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await PostgresEventStore.connect({ connectionString: database.url, pollIntervalMs: 100 });
    dataSource = await new DataSource(dataSourceOptions(database.url)).initialize();
    checkpoints = new CheckpointStore(dataSource);
    await dataSource.query('CREATE TABLE batched_totals (stream_id text PRIMARY KEY, total bigint NOT NULL)');
    await dataSource.query('CREATE TABLE per_event_counts (type text PRIMARY KEY, count bigint NOT NULL)');
    await store.appendToStream('acct-a', [event('Credited', 5), event('Noted', 0), event('Debited', 2)]);
    await store.appendToStream('acct-b', [event('Credited', 7), event('Ignored', 1), event('Credited', 9)]);
    await store.appendToStream('acct-a', [event('Credited', 11), event('Debited', 1)]);
    events = await store.readAll({ after: 0 });
  });
  beforeEach(async () => {
    await dataSource.query('TRUNCATE batched_totals, per_event_counts');
    await dataSource.query('DELETE FROM projection_checkpoints');
    batched = new BatchedTotalsProjection();
    counts = new CountsProjection();
  });
  afterAll(async () => {
    await store?.close();
    await dataSource?.destroy();
    await database?.drop();
  });

  it('given a projection with applyBatch, then it gets one call per batch with its handled events after its checkpoint, in order', async () => {
    const current = await checkpoints.ensure([batched.name, counts.name]);
    current.set(batched.name, 0);
    await dataSource.query(`UPDATE projection_checkpoints SET position = 2 WHERE name = $1`, [counts.name]);
    current.set(counts.name, 2); // the per-event projection already has the first two events

    const result = await checkpoints.applyBatch([batched, counts], current, events);

    const position = (type: string, amount: number) => events.find((e) => e.type === type && e.data.amount === amount)!.position;
    expect(batched.batches).toEqual([
      [
        position('Credited', 5),
        position('Debited', 2),
        position('Credited', 7),
        position('Credited', 9),
        position('Credited', 11),
        position('Debited', 1),
      ],
    ]);
    expect(batched.perEventCalls).toBe(0);
    expect((await rows('batched_totals')).map((row) => [row.stream_id, Number(row.total)])).toEqual([
      ['acct-a', 13],
      ['acct-b', 16],
    ]);
    // Credited 5 and Noted were before its checkpoint; Credited 7, 9, 11 after.
    expect((await rows('per_event_counts')).map((row) => [row.type, Number(row.count)])).toEqual([['Credited', 3]]);
    expect(result.applied).toEqual(
      new Map([
        [batched.name, 6],
        [counts.name, 3],
      ]),
    );
    expect([...(await stored()).values()]).toEqual([events.length, events.length]);
  });

  it('given applyBatch naming the event it failed on, then the error names the projection and that event, and nothing is written', async () => {
    batched.fault = 'named';
    const current = await checkpoints.ensure([batched.name, counts.name]);
    const failure = await checkpoints.applyBatch([counts, batched], current, events).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ProjectionApplyError);
    expect((failure as ProjectionApplyError).projection).toBe(batched.name);
    expect((failure as ProjectionApplyError).event.position).toBe(events[2].position); // the second handled event
    expect((failure as Error).message).toMatch(/^Projection batched_totals failed on Debited at position 3 \(acct-a\): cannot decode$/);
    expect(await rows('batched_totals')).toEqual([]);
    expect(await rows('per_event_counts')).toEqual([]); // the other projection's writes rolled back with it
    expect([...(await stored()).values()]).toEqual([0, 0]);
  });

  it('given applyBatch failing in Postgres, then the runner replays apply one by one (rolled back) to name the failing event', async () => {
    batched.fault = 'sql';
    batched.refuse = 9;
    const current = await checkpoints.ensure([batched.name]);
    const failure = await checkpoints.applyBatch([batched], current, events).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ProjectionApplyError);
    const refused = events.find((e) => e.data.amount === 9)!;
    expect((failure as ProjectionApplyError).event.position).toBe(refused.position);
    expect((failure as Error).message).toBe(
      `Projection batched_totals failed on Credited at position ${refused.position} (acct-b): amount 9 refused`,
    );
    expect(batched.perEventCalls).toBe(4); // 5, −2, 7 applied in the replay, then 9 refused
    expect(await rows('batched_totals')).toEqual([]); // the replay was rolled back
    expect((await stored()).get(batched.name)).toBe(0);
  });

  it('given applyBatch failing where apply one by one does not, then the error names the batch and its positions', async () => {
    batched.fault = 'sql';
    const current = await checkpoints.ensure([batched.name]);
    const failure = await checkpoints.applyBatch([batched], current, events).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ProjectionApplyError);
    expect((failure as ProjectionApplyError).batch).toEqual({
      count: 6,
      firstPosition: 1,
      lastPosition: events[events.length - 1].position,
      replay: 'accepted',
    });
    expect((failure as Error).message).toMatch(
      /^Projection batched_totals failed on a batch of 6 events \(positions 1-8\), which apply\(\) one by one accepts: invalid input syntax for type bigint/,
    );
    expect(await rows('batched_totals')).toEqual([]);
  });

  it('given a rebuild, then it applies through applyBatch in the same batches as live', async () => {
    await checkpoints.applyBatch([batched], await checkpoints.ensure([batched.name]), events);
    const live = await rows('batched_totals');
    batched.batches.length = 0;
    const report = await rebuildProjections({ dataSource, store, checkpoints, projections: [batched], batchSize: 3 });
    expect(batched.batches).toEqual([
      [1, 3],
      [4, 6],
      [7, 8],
    ]); // ledger batches of 3: Noted and Ignored are not handled
    expect(batched.perEventCalls).toBe(0);
    expect(report.projections).toEqual([{ name: batched.name, eventsApplied: 6, rows: { batched_totals: 2 }, bulk: false }]);
    expect(await rows('batched_totals')).toEqual(live);
  });
});
