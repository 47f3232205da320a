import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { dataSourceOptions } from '#server/infrastructure/database/data-source';
import { newEvent, systemActor } from '#server/ledger/event-envelope';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { PostgresEventStore } from '#server/ledger/postgres/postgres-event-store';
import { CheckpointStore } from './checkpoint-store';
import { holderPidQuery } from './leadership-lock';
import { CheckpointMovedError, type Projection, PROJECTOR_LEADER_LOCK } from './projection';
import { ProjectionRegistry } from './projection-registry';
import { ProjectionRunner } from './projection-runner';

/** A sample read model: one row per handled event, plus a running total per stream. */
class LedgerLinesProjection implements Projection {
  readonly name = 'sample_lines';
  readonly tables = ['sample_lines', 'sample_totals'];
  readonly handles = ['Credited', 'Debited', 'Exploded'];
  failOn: string | null = null;
  applied = 0;

  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    if (event.type === this.failOn) throw new Error(`cannot project ${event.type}`);
    const amount = (event.type === 'Debited' ? -1 : 1) * Number(event.data.amount ?? 0);
    await manager.query('INSERT INTO sample_lines (position, stream_id, type, amount) VALUES ($1, $2, $3, $4)', [
      event.position,
      event.streamId,
      event.type,
      amount,
    ]);
    await manager.query(
      `INSERT INTO sample_totals (stream_id, total) VALUES ($1, $2)
       ON CONFLICT (stream_id) DO UPDATE SET total = sample_totals.total + EXCLUDED.total`,
      [event.streamId, amount],
    );
    this.applied++;
  }
}

/** A second projection that joins later: it must start from 0 while the first skips what it has. */
class TypeCountsProjection implements Projection {
  readonly name = 'sample_type_counts';
  readonly tables = ['sample_type_counts'];
  readonly handles = ['Credited', 'Debited'];
  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    await manager.query(
      `INSERT INTO sample_type_counts (type, count) VALUES ($1, 1) ON CONFLICT (type) DO UPDATE SET count = sample_type_counts.count + 1`,
      [event.type],
    );
  }
}

const event = (type: string, amount = 1) =>
  newEvent(type, { amount }, { id: randomUUID(), metadata: { correlationId: 'runner-spec', reasonCode: 'test', actor: systemActor() } });

async function waitUntil(condition: () => Promise<boolean> | boolean, timeoutMs = 10000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('ProjectionRunner', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;
  let dataSource: DataSource;
  const runners: ProjectionRunner[] = [];

  const runner = (projections: Projection[]) => {
    const created = new ProjectionRunner({
      registry: ProjectionRegistry.of(projections),
      store,
      dataSource,
      databaseUrl: database.url,
      options: { batchSize: 100, lingerMs: 5, leadershipPollMs: 100, retryDelayMs: 100, heartbeatMs: 200 },
    });
    runners.push(created);
    return created;
  };
  const checkpoint = async (name: string) =>
    Number((await dataSource.query('SELECT position FROM projection_checkpoints WHERE name = $1', [name]))[0]?.position ?? -1);
  const count = async (table: string) => Number((await dataSource.query(`SELECT count(*) AS n FROM ${table}`))[0].n);

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await PostgresEventStore.connect({ connectionString: database.url, pollIntervalMs: 100 });
    dataSource = await new DataSource(dataSourceOptions(database.url)).initialize();
  });
  beforeEach(async () => {
    await dataSource.query('DROP TABLE IF EXISTS sample_lines, sample_totals, sample_type_counts');
    await dataSource.query(
      'CREATE TABLE sample_lines (position bigint PRIMARY KEY, stream_id text NOT NULL, type text NOT NULL, amount bigint NOT NULL)',
    );
    await dataSource.query('CREATE TABLE sample_totals (stream_id text PRIMARY KEY, total bigint NOT NULL)');
    await dataSource.query('CREATE TABLE sample_type_counts (type text PRIMARY KEY, count bigint NOT NULL)');
    // Each test starts caught up with the ledger earlier tests wrote (sample_type_counts starts from 0 on purpose).
    await dataSource.query('DELETE FROM projection_checkpoints');
    await dataSource.query(`INSERT INTO projection_checkpoints (name, position) VALUES ('sample_lines', $1)`, [await store.headPosition()]);
  });
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((created) => created.stop()));
  });
  afterAll(async () => {
    await store.close();
    await dataSource.destroy();
    await database.drop();
  });

  it('given an event that fails in apply, when its batch runs, then nothing of the batch is visible and the checkpoint stays', async () => {
    const projection = new LedgerLinesProjection();
    projection.failOn = 'Exploded';
    const before = await store.headPosition();
    await store.appendToStream(`acct-${randomUUID()}`, [
      event('Credited', 5),
      event('Credited', 7),
      event('Exploded'),
      event('Credited', 1),
    ]);
    const head = await store.headPosition();
    const running = runner([projection]);
    running.start();

    await waitUntil(
      async () => (await dataSource.query(`SELECT last_error FROM projection_checkpoints WHERE last_error IS NOT NULL`)).length > 0,
    );
    await new Promise((resolve) => setTimeout(resolve, 250)); // a retry or two happen meanwhile; none may leak
    expect(await count('sample_lines')).toBe(0);
    expect(await count('sample_totals')).toBe(0);
    expect(await checkpoint('sample_lines')).toBe(before);
    const [row] = await dataSource.query('SELECT last_error FROM projection_checkpoints WHERE name = $1', ['sample_lines']);
    expect(row.last_error).toMatch(/sample_lines failed on Exploded at position \d+.*cannot project Exploded/);
    expect(running.status().lastError).toMatch(/cannot project Exploded/);

    projection.failOn = null; // the fix is deployed
    await waitUntil(async () => (await checkpoint('sample_lines')) === head);
    expect(await count('sample_lines')).toBe(4);
    expect((await dataSource.query('SELECT total FROM sample_totals'))[0].total).toBe('14');
    expect((await dataSource.query('SELECT last_error FROM projection_checkpoints'))[0].last_error).toBeNull();
  });

  it('given events no projection handles, when they arrive, then the checkpoint still advances past them', async () => {
    const projection = new LedgerLinesProjection();
    runner([projection]).start();
    await store.appendToStream(`other-${randomUUID()}`, [event('SomethingElseHappened'), event('AndAnother')]);
    const head = await store.headPosition();
    await waitUntil(async () => (await checkpoint('sample_lines')) === head);
    expect(projection.applied).toBe(0);
  });

  it('given a projection added later, when the runner starts, then it replays from 0 while the other skips what it has', async () => {
    const lines = new LedgerLinesProjection();
    const stream = `acct-${randomUUID()}`;
    await store.appendToStream(stream, [event('Credited', 2), event('Debited', 1)]);
    const first = runner([lines]);
    first.start();
    const head = await store.headPosition();
    await waitUntil(async () => (await checkpoint('sample_lines')) === head);
    await first.stop();

    await store.appendToStream(stream, [event('Credited', 3)]);
    const newHead = await store.headPosition();
    runner([lines, new TypeCountsProjection()]).start();
    await waitUntil(async () => (await checkpoint('sample_type_counts')) === newHead && (await checkpoint('sample_lines')) === newHead);
    const counts = await dataSource.query('SELECT type, count FROM sample_type_counts ORDER BY type');
    const allCredited = (await store.readAll()).filter((recorded) => recorded.type === 'Credited').length;
    const allDebited = (await store.readAll()).filter((recorded) => recorded.type === 'Debited').length;
    expect(counts).toEqual([
      { type: 'Credited', count: String(allCredited) },
      { type: 'Debited', count: String(allDebited) },
    ]);
    expect(await count('sample_lines')).toBe(3); // 2 before + 1 after; nothing applied twice
  });

  it('given two runners, when both start, then only the leader applies; when it stops, the other takes over', async () => {
    const first = new LedgerLinesProjection();
    const second = new LedgerLinesProjection();
    const a = runner([first]);
    const b = runner([second]);
    a.start();
    await waitUntil(() => a.isLeader);
    b.start();
    const stream = `acct-${randomUUID()}`;
    for (let i = 0; i < 10; i++) await store.appendToStream(stream, [event('Credited')]);
    await waitUntil(async () => (await checkpoint('sample_lines')) === (await store.headPosition()));
    expect(first.applied).toBe(10);
    expect(second.applied).toBe(0);
    expect(b.isLeader).toBe(false);

    await a.stop();
    for (let i = 0; i < 5; i++) await store.appendToStream(stream, [event('Credited')]);
    await waitUntil(async () => (await checkpoint('sample_lines')) === (await store.headPosition()));
    expect(b.isLeader).toBe(true);
    expect(first.applied).toBe(10);
    expect(second.applied).toBe(5);
    expect(await count('sample_lines')).toBe(15);
  });

  it('given a leader whose process dies, when Postgres drops its session, then the follower takes over without duplicates', async () => {
    const first = new LedgerLinesProjection();
    const second = new LedgerLinesProjection();
    const a = runner([first]);
    const b = runner([second]);
    a.start();
    await waitUntil(() => a.isLeader);
    b.start();
    const stream = `acct-${randomUUID()}`;
    await store.appendToStream(stream, [event('Credited'), event('Credited')]);
    await waitUntil(async () => (await checkpoint('sample_lines')) === (await store.headPosition()));

    // What a crash looks like to Postgres: the leader's lock session disappears.
    const admin = new Client({ connectionString: database.url });
    await admin.connect();
    const [holderSql, holderParameters] = holderPidQuery(PROJECTOR_LEADER_LOCK); // this database's holder only
    const [{ pid }] = (await admin.query(holderSql, holderParameters)).rows;
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await admin.end();
    await waitUntil(() => b.isLeader);
    await store.appendToStream(stream, [event('Credited'), event('Credited'), event('Credited')]);
    await waitUntil(async () => (await checkpoint('sample_lines')) === (await store.headPosition()));
    expect(first.applied + second.applied).toBe(5);
    expect(second.applied).toBeGreaterThanOrEqual(3);
    expect(await count('sample_lines')).toBe(5);
  });

  it('given stale checkpoints (a second leader), when it applies a batch, then the batch is refused and nothing is written', async () => {
    const projection = new LedgerLinesProjection();
    const checkpoints = new CheckpointStore(dataSource);
    const mine = await checkpoints.ensure(['sample_lines']);
    await store.appendToStream(`acct-${randomUUID()}`, [event('Credited')]);
    const events = await store.readAll({ after: mine.get('sample_lines') });
    const theirs = new Map(mine);
    await checkpoints.applyBatch([projection], theirs, events); // the "other" leader commits first
    await expect(checkpoints.applyBatch([projection], mine, events)).rejects.toBeInstanceOf(CheckpointMovedError);
    expect(await count('sample_lines')).toBe(1);
  });
});
