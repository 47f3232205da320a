import { randomUUID } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { compareTables, snapshotTables } from '#test/support/compare-tables';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { dataSourceOptions } from '#server/infrastructure/database/data-source';
import { newEvent, systemActor } from '#server/ledger/event-envelope';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { PostgresEventStore } from '#server/ledger/postgres/postgres-event-store';
import type { BulkFold } from './bulk-fold';
import { dropDeferredIndexes } from './deferred-indexes';
import { LeadershipUnavailableError, type Projection, ProjectionApplyError } from './projection';
import { takeSnapshot } from './projection-snapshot';
import { ProjectionRegistry } from './projection-registry';
import { ProjectionRunner } from './projection-runner';

/** Sample read models: balances (upserts, a serial id, times from the event) and a statement (one row per event). */
class SampleBalancesProjection implements Projection {
  readonly name = 'sample_balances';
  readonly tables = ['sample_balances'];
  readonly handles = ['Credited', 'Debited'];
  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    const delta = (event.type === 'Credited' ? 1 : -1) * Number(event.data.amount);
    await manager.query(
      `INSERT INTO sample_balances (account, balance, last_change_at, changes) VALUES ($1, $2, $3, 1)
       ON CONFLICT (account) DO UPDATE SET balance = sample_balances.balance + EXCLUDED.balance,
         last_change_at = EXCLUDED.last_change_at, changes = sample_balances.changes + 1`,
      [event.streamId, delta, event.createdAt],
    );
  }
}

class SampleStatementProjection implements Projection {
  readonly name = 'sample_statement';
  readonly tables = ['sample_statement'];
  readonly handles = ['Credited', 'Debited', 'Noted'];
  /** sample_statement_note: an index no fold reads; sample_statement_account is UNIQUE, so it is never deferred. */
  readonly deferredIndexes = ['sample_statement_note', 'sample_statement_account'];
  /** Whether sample_statement_note existed, seen from inside each batch's transaction. */
  readonly noteIndexSeen: boolean[] = [];
  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    const [index] = await manager.query(`SELECT to_regclass('sample_statement_note') IS NOT NULL AS present`);
    this.noteIndexSeen.push(index.present);
    await manager.query('INSERT INTO sample_statement (account, type, amount, note, at) VALUES ($1, $2, $3, $4, $5)', [
      event.streamId,
      event.type,
      Number(event.data.amount ?? 0),
      event.metadata.reasonCode,
      event.createdAt,
    ]);
  }
}

/**
 * The statement with a bulk fold: its rows made in memory, written with COPY page by page (ids from the serial, in
 * ledger order as apply's inserts take them); `failAt`: the fold cannot decode the event at that position.
 */
class SampleBulkStatementProjection extends SampleStatementProjection {
  constructor(private readonly failAt?: number) {
    super();
  }
  bulkFold(): BulkFold {
    let rows: unknown[][] = [];
    const drain = () => {
      const drained = rows;
      rows = [];
      return [{ table: 'sample_statement', columns: ['account', 'type', 'amount', 'note', 'at'], rows: drained }];
    };
    return {
      add: (event) => {
        if (event.position === this.failAt) throw new Error(`cannot fold position ${event.position}`);
        rows.push([event.streamId, event.type, Number(event.data.amount ?? 0), event.metadata.reasonCode, event.createdAt]);
      },
      drain,
      finish: drain,
      // An upsert that needs the UNIQUE constraint the rebuild dropped for the load (its row conflicts with itself:
      // nothing changes); it fails unless the load has added the constraint back first.
      finishBarrier: () => async (manager) => {
        await manager.query(
          `INSERT INTO sample_statement (id, account, type, amount, note, at)
           SELECT id, account, type, amount, note, at FROM sample_statement ORDER BY id LIMIT 1
           ON CONFLICT ON CONSTRAINT sample_statement_row DO NOTHING`,
        );
      },
    };
  }
}

const TABLES = ['sample_balances', 'sample_statement'];

function sampleEvents(count: number, seed: number) {
  const types = ['Credited', 'Credited', 'Debited', 'Noted', 'Ignored'];
  return Array.from({ length: count }, (_, i) =>
    newEvent(
      types[(i * 7 + seed) % types.length],
      { amount: ((i * 13 + seed) % 50) + 1 },
      {
        id: randomUUID(),
        metadata: { correlationId: `rebuild-${seed}-${i}`, reasonCode: `reason_${i % 3}`, actor: systemActor() },
      },
    ),
  );
}

async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 15000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('ProjectionRunner.rebuild', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;
  let dataSource: DataSource;
  const runners: ProjectionRunner[] = [];
  const newRunner = () => {
    const runner = new ProjectionRunner({
      registry: ProjectionRegistry.of([new SampleBalancesProjection(), new SampleStatementProjection()]),
      store,
      dataSource,
      databaseUrl: database.url,
      // Rebuilds in pages of 25 with 2 projections at a time: several pages, both lanes busy.
      options: { batchSize: 37, rebuildBatchSize: 25, rebuildLanes: 2, lingerMs: 5, leadershipPollMs: 100, retryDelayMs: 100 },
    });
    runners.push(runner);
    return runner;
  };
  const caughtUp = async () => {
    const head = await store.headPosition();
    const rows: Array<{ position: string }> = await dataSource.query('SELECT position FROM projection_checkpoints');
    return rows.length === 2 && rows.every((row) => Number(row.position) === head);
  };
  const appendSample = async (count: number, seed: number) => {
    const events = sampleEvents(count, seed);
    for (let i = 0; i < events.length; i += 4) await store.appendToStream(`account-${(i / 4) % 12}`, events.slice(i, i + 4));
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await PostgresEventStore.connect({ connectionString: database.url, pollIntervalMs: 100 });
    dataSource = await new DataSource(dataSourceOptions(database.url)).initialize();
    await dataSource.query(
      'CREATE TABLE sample_balances (id serial, account text PRIMARY KEY, balance bigint NOT NULL, last_change_at timestamptz NOT NULL, changes int NOT NULL)',
    );
    await dataSource.query(
      'CREATE TABLE sample_statement (id bigserial PRIMARY KEY, account text NOT NULL, type text NOT NULL, amount bigint NOT NULL, note text NOT NULL, at timestamptz NOT NULL)',
    );
    await dataSource.query('CREATE INDEX sample_statement_note ON sample_statement (note, at DESC)');
    await dataSource.query('CREATE UNIQUE INDEX sample_statement_account ON sample_statement (account, id)');
    await dataSource.query('CREATE INDEX sample_statement_type ON sample_statement (type)');
    await dataSource.query('ALTER TABLE sample_statement ADD CONSTRAINT sample_statement_row UNIQUE (id, at)');
  });
  afterAll(async () => {
    await Promise.all(runners.map((runner) => runner.stop()));
    await store.close();
    await dataSource.destroy();
    await database.drop();
  });

  it('given live read models, when rebuilt by the running leader, then they equal the live tables row for row and live resumes', async () => {
    const live = newRunner();
    live.start();
    await appendSample(300, 1);
    await waitUntil(caughtUp);
    const before = await snapshotTables(dataSource, TABLES);
    expect(before.sample_statement.length).toBeGreaterThan(100);

    const report = await live.rebuild();
    expect(report.eventsReplayed).toBe(300);
    expect(report.position).toBe(await store.headPosition());
    const applied = Object.fromEntries(report.projections.map((projection) => [projection.name, projection.eventsApplied]));
    expect(applied.sample_statement).toBe(before.sample_statement.length);
    expect(report.projections.find((projection) => projection.name === 'sample_balances')?.rows).toEqual({ sample_balances: 12 });

    const comparison = await compareTables(before, dataSource, TABLES);
    expect(comparison.summary).toMatch(/^equal/);
    expect(comparison.equal).toBe(true);

    await appendSample(40, 2);
    await waitUntil(caughtUp);
    expect((await snapshotTables(dataSource, ['sample_statement'])).sample_statement.length).toBeGreaterThan(
      before.sample_statement.length,
    );
  });

  it('given a leader in another process, when a second runner asks to rebuild, then it is refused with the holder named', async () => {
    const idle = newRunner();
    const error = await idle.rebuild({ waitMs: 300 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LeadershipUnavailableError);
    expect((error as Error).message).toMatch(/Another projector holds the leadership \(Postgres backend pid \d+\)/);
  });

  it('given the leader stopped, when a standalone runner rebuilds one projection, then only its tables are replaced, equal to live', async () => {
    await Promise.all(runners.map((runner) => runner.stop()));
    const live = await snapshotTables(dataSource, TABLES);
    const statementCheckpoint = async () =>
      (await dataSource.query(`SELECT position, updated_at FROM projection_checkpoints WHERE name = 'sample_statement'`))[0];
    const untouched = await statementCheckpoint();
    const standalone = newRunner();
    const report = await standalone.rebuild({ projections: ['sample_balances'] });
    expect(report.projections.map((projection) => projection.name)).toEqual(['sample_balances']);
    expect(await statementCheckpoint()).toEqual(untouched);
    const comparison = await compareTables(live, dataSource, TABLES);
    expect(comparison.equal).toBe(true);
    // Proof the table really was emptied and refilled: its serial restarted, and the ids still match live.
    const ids = await dataSource.query('SELECT min(id) AS min FROM sample_balances');
    expect(ids[0].min).toBe(1);
  });

  const constraints = async (): Promise<string[]> =>
    (
      await dataSource.query(
        `SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conrelid = 'sample_statement'::regclass AND contype = 'u'`,
      )
    ).map((row: { definition: string }) => row.definition);
  const indexes = async (): Promise<string[]> =>
    (await dataSource.query(`SELECT indexdef FROM pg_indexes WHERE tablename = 'sample_statement' ORDER BY indexname`)).map(
      (row: { indexdef: string }) => row.indexdef,
    );

  it('given a projection with deferred indexes, when rebuilt, then its plain index is gone during the replay and back after, progress reported to the head', async () => {
    const before = await indexes();
    expect(before.join('\n')).toMatch(/sample_statement_note/);
    const statement = new SampleStatementProjection();
    const runner = new ProjectionRunner({
      registry: ProjectionRegistry.of([new SampleBalancesProjection(), statement]),
      store,
      dataSource,
      databaseUrl: database.url,
      options: { rebuildBatchSize: 50, rebuildLanes: 2, leadershipPollMs: 100 },
    });
    runners.push(runner);
    const progress: Array<{ done: number; total: number }> = [];
    const head = await store.headPosition();
    const report = await runner.rebuild({ onProgress: ({ done, total }) => progress.push({ done, total }) });

    expect(report.eventsReplayed).toBe(head);
    expect(statement.noteIndexSeen.length).toBeGreaterThan(0);
    expect(statement.noteIndexSeen.every((present) => !present)).toBe(true); // dropped for the whole replay
    expect(await indexes()).toEqual(before); // created again, the unique one never dropped
    expect(await dataSource.query('SELECT * FROM projection_deferred_indexes')).toEqual([]);
    expect(progress[0]).toEqual({ done: 0, total: head });
    expect(progress[progress.length - 1]).toEqual({ done: head, total: head });
    expect(progress.map((step) => step.done)).toEqual([...progress.map((step) => step.done)].sort((a, b) => a - b));
    expect(progress.length).toBe(Math.ceil(head / 50) + 1);
  });

  it('given a rebuild that died with its indexes dropped, when the projector next runs live, then it creates them again first', async () => {
    const before = await indexes();
    await dropDeferredIndexes(dataSource, [new SampleStatementProjection()]); // what a killed rebuild leaves
    expect(await indexes()).not.toEqual(before);
    expect(await dataSource.query('SELECT index_name FROM projection_deferred_indexes')).toEqual([{ index_name: 'sample_statement_note' }]);

    const live = newRunner();
    live.start();
    await waitUntil(async () => (await dataSource.query('SELECT 1 FROM projection_deferred_indexes')).length === 0);
    expect(await indexes()).toEqual(before);
    await live.stop();
  });

  const checkpointOf = async (name: string) =>
    Number((await dataSource.query('SELECT position FROM projection_checkpoints WHERE name = $1', [name]))[0].position);
  const bulkRunner = (statement: SampleStatementProjection) => {
    const runner = new ProjectionRunner({
      registry: ProjectionRegistry.of([new SampleBalancesProjection(), statement]),
      store,
      dataSource,
      databaseUrl: database.url,
      options: { rebuildBatchSize: 25, rebuildLanes: 2, leadershipPollMs: 100 },
    });
    runners.push(runner);
    return runner;
  };

  it('given a projection with a bulk fold and one without, when rebuilt, then one goes through a BulkLoad, the other page by page after it, both equal to live', async () => {
    const live = await snapshotTables(dataSource, TABLES);
    const head = await store.headPosition();
    const progress: number[] = [];
    type Seen = { committedBefore: boolean; present: boolean; committedAfter: boolean };
    const typeIndex: Array<Promise<Seen>> = [];
    const rowConstraint: Array<Promise<Seen>> = [];
    // Whether the load has committed (its checkpoint at the head), then whether the relation exists, then the
    // checkpoint again, in three statements one after the other. A sample's queries may run later than the page that
    // issued them (the last bulk page's, after the load's commit on a loaded machine), and a catalog lookup such as
    // to_regclass reads a catalog snapshot that can be newer than its statement's, so one statement cannot pair them.
    // The load commits its index and its checkpoint together, so a checkpoint seen committed means the index is
    // there afterwards, and an index seen means the checkpoint is committed for every later statement.
    const committed = async () =>
      (
        await dataSource.query(
          `SELECT coalesce((SELECT position FROM projection_checkpoints WHERE name = 'sample_statement'), 0) = $1 AS done`,
          [head],
        )
      )[0].done as boolean;
    const sample = async (relation: string): Promise<Seen> => {
      const committedBefore = await committed();
      const [{ present }] = await dataSource.query(`SELECT to_regclass('${relation}') IS NOT NULL AS present`);
      return { committedBefore, present, committedAfter: await committed() };
    };
    const report = await bulkRunner(new SampleBulkStatementProjection()).rebuild({
      onProgress: ({ done }) => {
        progress.push(done);
        typeIndex.push(sample('sample_statement_type'));
        rowConstraint.push(sample('sample_statement_row'));
      },
    });
    // Not in deferredIndexes, but a plain index of a bulk-loaded table, and its UNIQUE constraint: both gone while the
    // load's rows went in (the first pass's pages), built by the load in its transaction once they were all written
    // (the constraint before the finish barrier's upsert that needs it), so both there during the classic pass.
    const bulkPages = Math.ceil(head / 25);
    for (const seen of [typeIndex, rowConstraint]) {
      const rows = await Promise.all(seen);
      const bulk = rows.slice(1, bulkPages + 1);
      expect(bulk.filter((row) => (row.committedBefore && !row.present) || (row.present && !row.committedAfter))).toEqual([]);
      expect(bulk.filter((row) => !row.present).length).toBeGreaterThanOrEqual(Math.ceil(bulkPages / 2));
      expect(rows.slice(bulkPages + 1).map((row) => row.present)).not.toContain(false);
    }
    expect(await indexes()).toEqual(expect.arrayContaining([expect.stringMatching(/sample_statement_type/)]));
    expect(await constraints()).toEqual(['UNIQUE (id, at)']);

    expect(Object.fromEntries(report.projections.map((projection) => [projection.name, projection.bulk]))).toEqual({
      sample_balances: false,
      sample_statement: true,
    });
    expect(report.projections.find((projection) => projection.name === 'sample_statement')).toMatchObject({
      eventsApplied: live.sample_statement.length,
      rows: { sample_statement: live.sample_statement.length },
    });
    expect((await compareTables(live, dataSource, TABLES)).summary).toMatch(/^equal/);
    expect(await checkpointOf('sample_statement')).toBe(head);
    expect(await checkpointOf('sample_balances')).toBe(head);
    // Two passes (the bulk loads, then the classic path): each page of either is half the work.
    const pages = Math.ceil(head / 25);
    expect(progress).toHaveLength(2 * pages + 1);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress[pages]).toBe(Math.round(head / 2));
    expect(progress[progress.length - 1]).toBe(head);
    expect(await indexes()).toEqual(expect.arrayContaining([expect.stringMatching(/sample_statement_note/)]));
  });

  it('given a bulk fold that fails mid-rebuild, then its load is rolled back (empty table, checkpoint 0), the classic pass never starts (its table as the reset left it), and the indexes are back', async () => {
    const live = await snapshotTables(dataSource, TABLES);
    const head = await store.headPosition();
    const failAt = head - 30; // pages of 25: several pages COPYed before it
    const error = await bulkRunner(new SampleBulkStatementProjection(failAt))
      .rebuild()
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ProjectionApplyError);
    expect((error as ProjectionApplyError).event.position).toBe(failAt);
    for (const table of TABLES) expect(await dataSource.query(`SELECT count(*)::int AS count FROM ${table}`)).toEqual([{ count: 0 }]);
    expect(await checkpointOf('sample_statement')).toBe(0);
    expect(await checkpointOf('sample_balances')).toBe(0);
    expect(await dataSource.query('SELECT * FROM projection_deferred_indexes')).toEqual([]);
    expect(await indexes()).toEqual(expect.arrayContaining([expect.stringMatching(/sample_statement_note/)]));
    expect(await constraints()).toEqual(['UNIQUE (id, at)']); // dropped for the load, which never reached a barrier

    await bulkRunner(new SampleBulkStatementProjection()).rebuild();
    expect((await compareTables(live, dataSource, TABLES)).summary).toMatch(/^equal/);
  });

  it('given a ledger snapshot of one projection, when rebuilt, then that one is restored and replays page by page from its position while the other replays from 0 through its bulk fold, both equal to live', async () => {
    const snapshot = await takeSnapshot(dataSource, [new SampleBalancesProjection()], { reason: 'spec' });
    const liveRunner = newRunner();
    liveRunner.start();
    await appendSample(30, 3);
    await waitUntil(caughtUp);
    await liveRunner.stop();
    const live = await snapshotTables(dataSource, TABLES);

    const report = await bulkRunner(new SampleBulkStatementProjection()).rebuild();
    expect(report.snapshot).toEqual({ id: snapshot.id, position: snapshot.position, restored: ['sample_balances'] });
    expect(report.eventsReplayed).toBe(await store.headPosition());
    expect(Object.fromEntries(report.projections.map((projection) => [projection.name, projection.bulk]))).toEqual({
      sample_balances: false,
      sample_statement: true,
    });
    expect((await compareTables(live, dataSource, TABLES)).summary).toMatch(/^equal/);
  });

  it('given a deliberately different table, when compared, then compareTables reports the differing rows', async () => {
    const live = await snapshotTables(dataSource, TABLES);
    await dataSource.query(`UPDATE sample_balances SET balance = balance + 1 WHERE account = 'account-0'`);
    const comparison = await compareTables(live, dataSource, TABLES);
    expect(comparison.equal).toBe(false);
    expect(comparison.differences).toHaveLength(1);
    expect(comparison.differences[0].table).toBe('sample_balances');
    expect(comparison.differences[0].onlyInFirst).toHaveLength(1);
    expect(comparison.summary).toMatch(/sample_balances: 1 row\(s\) only in the first, 1 only in the second/);
  });
});
