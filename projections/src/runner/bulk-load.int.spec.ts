import { DataSource, type EntityManager } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { dataSourceOptions } from '#server/infrastructure/database/data-source';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import type { BulkFold, BulkRows } from './bulk-fold';
import { BulkLoad, type BulkProjection } from './bulk-load';
import { copyField, copyRows, copyText } from './copy-rows';
import { dropDeferredIndexes, restoreDeferredIndexes } from './deferred-indexes';
import { ProjectionApplyError, ProjectionEventError } from './projection';

/**
 * A toy projection: `Noted` events become rows of bulk_toy_notes; `Cleared` deletes them (a barrier); `Bad` cannot be
 * decoded; `Tally` adds to the totals row of its text once every row is written (the finish barrier), or names a
 * column that does not exist (`broken`).
 */
class NotesProjection implements BulkProjection {
  readonly name = 'bulk-toy';
  /** bulk_toy_marks: no fold writes it; a spec makes it, partitioned, to see the load analyze its partitions. */
  readonly tables = ['bulk_toy_notes', 'bulk_toy_totals', 'bulk_toy_marks'];
  readonly handles = ['Noted', 'Cleared', 'Bad', 'Tally'];

  async apply(): Promise<void> {
    throw new Error('not used: this spec is about the bulk path');
  }

  bulkFold(): BulkFold {
    let notes: unknown[][] = [];
    const totals = new Map<string, number>();
    const tallies: RecordedEvent[] = [];
    return {
      barrierBefore: (event) =>
        event.type === 'Cleared' ? (manager: EntityManager) => manager.query('DELETE FROM bulk_toy_notes').then(() => undefined) : null,
      add: (event) => {
        if (event.type === 'Bad') throw new ProjectionEventError(event, new Error('cannot decode'));
        if (event.type === 'Tally') tallies.push(event);
        if (event.type !== 'Noted') return;
        const text = String(event.data.text);
        notes.push([event.position, text, event.data.extra ?? null, event.createdAt]);
        totals.set(text, (totals.get(text) ?? 0) + 1);
      },
      drain: (): BulkRows[] => {
        const rows = notes;
        notes = [];
        return [{ table: 'bulk_toy_notes', columns: ['position', 'text', 'extra', 'at'], rows }];
      },
      finish: (): BulkRows[] => [
        { table: 'bulk_toy_totals', columns: ['text', 'count'], rows: [...totals].map(([text, count]) => [text, count]) },
      ],
      finishBarrier: () =>
        tallies.length === 0
          ? null
          : async (manager: EntityManager) => {
              for (const tally of tallies) {
                const column = tally.data.broken ? 'no_such_column' : 'count';
                await manager.query(`UPDATE bulk_toy_totals SET ${column} = count + 1 WHERE text = $1`, [tally.data.text]);
              }
            },
    };
  }
}

let position = 0;
const event = (type: string, data: Record<string, unknown> = {}): RecordedEvent => ({
  id: `00000000-0000-4000-8000-${String(++position).padStart(12, '0')}`,
  streamId: 'toy-1',
  revision: position - 1,
  position,
  type,
  data,
  metadata: {} as RecordedEvent['metadata'],
  createdAt: new Date(Date.UTC(2026, 10, 1, 0, 0, position)),
});

describe('copy-rows', () => {
  it('writes fields in COPY text format: escapes, NULL, booleans, dates, JSON', () => {
    expect(copyField('a\tb\nc\\d\re')).toBe('a\\tb\\nc\\\\d\\re');
    expect(copyField(null)).toBe('\\N');
    expect(copyField(undefined)).toBe('\\N');
    expect(copyField(true)).toBe('t');
    expect(copyField(12n)).toBe('12');
    expect(copyField(1.5)).toBe('1.5');
    expect(copyField(new Date(Date.UTC(2026, 0, 2)))).toBe('2026-01-02T00:00:00.000Z');
    expect(copyField({ a: 'x\ty' })).toBe('{"a":"x\\\\ty"}');
    expect(() => copyField(Number.NaN)).toThrow(/NaN/);
    expect(() => [...copyText([[1, 2]], 3)]).toThrow(/2 values for 3 columns/);
  });
});

describe('BulkLoad', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  const projection = new NotesProjection();
  const rows = (sql: string) => dataSource.query(sql);

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await new DataSource({ ...dataSourceOptions(database.url), extra: { max: 3 } }).initialize();
    await dataSource.query(
      'CREATE TABLE bulk_toy_notes (position bigint PRIMARY KEY, text text NOT NULL, extra jsonb, at timestamptz NOT NULL)',
    );
    await dataSource.query('CREATE TABLE bulk_toy_totals (text text PRIMARY KEY, count integer NOT NULL)');
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });
  beforeEach(async () => {
    await dataSource.query('TRUNCATE bulk_toy_notes, bulk_toy_totals');
    await dataSource.query(
      `INSERT INTO projection_checkpoints (name, position) VALUES ($1, 0) ON CONFLICT (name) DO UPDATE SET position = 0`,
      [projection.name],
    );
  });

  it('given a load that commits, then its tables have planner statistics, a partitioned one on each partition', async () => {
    await dataSource.query('CREATE TABLE bulk_toy_marks (kind text NOT NULL, n integer NOT NULL) PARTITION BY LIST (kind)');
    await dataSource.query(`CREATE TABLE bulk_toy_marks_a PARTITION OF bulk_toy_marks FOR VALUES IN ('a')`);
    await dataSource.query(`CREATE TABLE bulk_toy_marks_b PARTITION OF bulk_toy_marks FOR VALUES IN ('b')`);
    await dataSource.query(`INSERT INTO bulk_toy_marks SELECT CASE WHEN n % 3 = 0 THEN 'a' ELSE 'b' END, n FROM generate_series(1, 30) n`);
    // What the planner knows of each table's size: -1 for a table never analyzed (and one just truncated).
    const known = async () => {
      const found: Array<{ relname: string; reltuples: number }> = await dataSource.query(
        `SELECT relname, reltuples FROM pg_class WHERE relname LIKE 'bulk\\_toy\\_%' AND relkind IN ('r', 'p') ORDER BY relname`,
      );
      return Object.fromEntries(found.map((row) => [row.relname, row.reltuples]));
    };
    const never = { bulk_toy_marks: -1, bulk_toy_marks_a: -1, bulk_toy_marks_b: -1, bulk_toy_notes: -1, bulk_toy_totals: -1 };
    expect(await known()).toEqual(never);

    const load = await BulkLoad.start(dataSource, projection, 0);
    await load.feed([event('Noted', { text: 'x' }), event('Noted', { text: 'y' }), event('Noted', { text: 'x' })]);
    await load.complete(position);
    // Analyzed in the load's transaction: its column statistics show once it commits.
    const statistics = async () => {
      const found: Array<{ tablename: string }> = await dataSource.query(
        `SELECT DISTINCT tablename FROM pg_stats WHERE tablename LIKE 'bulk\\_toy\\_%' ORDER BY tablename`,
      );
      return found.map((row) => row.tablename);
    };
    expect(await statistics()).toEqual([]);
    await load.commit();
    expect(await statistics()).toEqual(['bulk_toy_marks_a', 'bulk_toy_marks_b', 'bulk_toy_notes', 'bulk_toy_totals']);
    // The parent of the partitions is not analyzed as a whole, as autovacuum never does.
    expect(await known()).toEqual({
      bulk_toy_marks: -1,
      bulk_toy_marks_a: 10,
      bulk_toy_marks_b: 20,
      bulk_toy_notes: 3,
      bulk_toy_totals: 2,
    });
    await dataSource.query('DROP TABLE bulk_toy_marks');
  });

  it('given pages with awkward text and a barrier, then the rows land exactly, the barrier sees every row before it, and the checkpoint moves', async () => {
    const awkward = 'tab\there, newline\nthere, back\\slash, 中文, "quotes"';
    const first = [event('Noted', { text: 'gone' }), event('Other'), event('Noted', { text: 'gone', extra: { k: 'v\t' } })];
    const second = [event('Cleared'), event('Noted', { text: awkward }), event('Noted', { text: 'kept', extra: [1, 2] })];
    const load = await BulkLoad.start(dataSource, projection, 0);
    await load.feed(first);
    await load.feed(second);
    await load.finish(second[2].position);

    expect(await rows('SELECT text, extra FROM bulk_toy_notes ORDER BY position')).toEqual([
      { text: awkward, extra: null },
      { text: 'kept', extra: [1, 2] },
    ]);
    expect(await rows('SELECT text, count FROM bulk_toy_totals ORDER BY text')).toEqual([
      { text: 'gone', count: 2 },
      { text: 'kept', count: 1 },
      { text: awkward, count: 1 },
    ]);
    expect(load.eventsApplied).toBe(5);
    expect(await rows(`SELECT position FROM projection_checkpoints WHERE name = 'bulk-toy'`)).toEqual([
      { position: String(second[2].position) },
    ]);
  });

  it('given an event the fold cannot decode, then the error names it and abort leaves tables and checkpoint as they were', async () => {
    const events = [event('Noted', { text: 'a' }), event('Bad'), event('Noted', { text: 'b' })];
    const load = await BulkLoad.start(dataSource, projection, 0);
    await load.feed(events.slice(0, 1));
    const failure = await load.feed(events.slice(1)).catch((error: unknown) => error);
    await load.abort();
    expect(failure).toBeInstanceOf(ProjectionApplyError);
    expect((failure as ProjectionApplyError).event.position).toBe(events[1].position);
    expect(await rows('SELECT count(*)::int AS n FROM bulk_toy_notes')).toEqual([{ n: 0 }]);
    expect(await rows(`SELECT position FROM projection_checkpoints WHERE name = 'bulk-toy'`)).toEqual([{ position: '0' }]);
  });

  it('given a checkpoint that is not where the rebuild left it, then the load is refused', async () => {
    await dataSource.query(`UPDATE projection_checkpoints SET position = 7 WHERE name = 'bulk-toy'`);
    await expect(BulkLoad.start(dataSource, projection, 0)).rejects.toThrow(/Checkpoint of bulk-toy is 7, expected 0/);
  });

  it('given a COPY Postgres refuses, then the error names the projection and table and the rows before it are rolled back', async () => {
    const load = await BulkLoad.start(dataSource, projection, 0);
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    try {
      await expect(
        copyRows(runner, { table: 'bulk_toy_totals', columns: ['text', 'count'], rows: [['a', 'not a number']] }),
      ).rejects.toThrow(/integer/);
    } finally {
      await runner.release();
    }
    await load.feed([event('Noted', { text: 'dup' })]);
    const dup = event('Noted', { text: 'dup' });
    await load.feed([dup]);
    // Both `dup` notes count into one totals row; force a clash by writing that row before finish does.
    await dataSource.query(`INSERT INTO bulk_toy_totals (text, count) VALUES ('dup', 9)`);
    const failure = await load.finish(dup.position).catch((error: unknown) => error);
    expect(String(failure)).toMatch(/bulk-toy: COPY into bulk_toy_totals failed/);
    expect(await rows('SELECT count(*)::int AS n FROM bulk_toy_notes')).toEqual([{ n: 0 }]);
    expect(await rows(`SELECT position FROM projection_checkpoints WHERE name = 'bulk-toy'`)).toEqual([{ position: '0' }]);
  }, 20_000);
  it("given its table's plain index and UNIQUE constraint dropped by the rebuild, then complete builds both in its transaction; rows that break the constraint fail the load and leave both to be restored", async () => {
    const present = async () => {
      const [row] = await rows(
        `SELECT to_regclass('bulk_toy_notes_text') IS NOT NULL AS index, to_regclass('bulk_toy_notes_once') IS NOT NULL AS "constraint"`,
      );
      return row;
    };
    const deferred = async () =>
      (await rows('SELECT index_name FROM projection_deferred_indexes ORDER BY 1')).map((row: { index_name: string }) => row.index_name);
    await dataSource.query('CREATE INDEX bulk_toy_notes_text ON bulk_toy_notes (text)');
    await dataSource.query('ALTER TABLE bulk_toy_notes ADD CONSTRAINT bulk_toy_notes_once UNIQUE (text, at)');
    try {
      await dropDeferredIndexes(dataSource, [], { bulkLoaded: [projection] });
      expect(await present()).toEqual({ index: false, constraint: false });
      expect(await deferred()).toEqual(['bulk_toy_notes_once', 'bulk_toy_notes_text']);

      const load = await BulkLoad.start(dataSource, projection, 0);
      const notes = [event('Noted', { text: 'a' }), event('Noted', { text: 'b' })];
      await load.feed(notes);
      await load.complete(notes[1].position);
      expect(await present()).toEqual({ index: false, constraint: false }); // not committed yet
      await load.commit();
      expect(await present()).toEqual({ index: true, constraint: true });
      expect(await deferred()).toEqual([]);

      await dataSource.query('TRUNCATE bulk_toy_notes, bulk_toy_totals');
      await dataSource.query(`UPDATE projection_checkpoints SET position = 0 WHERE name = 'bulk-toy'`);
      await dropDeferredIndexes(dataSource, [], { bulkLoaded: [projection] });
      const second = await BulkLoad.start(dataSource, projection, 0);
      const twins = [event('Noted', { text: 'twin' }), event('Noted', { text: 'twin' })];
      twins[1].createdAt = twins[0].createdAt; // the same (text, at) twice: what a fold must never write
      await second.feed(twins);
      const failure = await second.complete(twins[1].position).catch((error: unknown) => error);
      await second.abort();
      expect(String(failure)).toMatch(/bulk_toy_notes_once/);
      expect(await rows('SELECT count(*)::int AS n FROM bulk_toy_notes')).toEqual([{ n: 0 }]);
      expect(await rows(`SELECT position FROM projection_checkpoints WHERE name = 'bulk-toy'`)).toEqual([{ position: '0' }]);
      expect(await deferred()).toEqual(['bulk_toy_notes_once', 'bulk_toy_notes_text']);
      expect(await restoreDeferredIndexes(dataSource)).toEqual(['bulk_toy_notes_once', 'bulk_toy_notes_text']);
      expect(await present()).toEqual({ index: true, constraint: true });
    } finally {
      await dataSource.query('DELETE FROM projection_deferred_indexes');
      await dataSource.query('DROP INDEX IF EXISTS bulk_toy_notes_text');
      await dataSource.query('ALTER TABLE bulk_toy_notes DROP CONSTRAINT IF EXISTS bulk_toy_notes_once');
    }
  });

  it('given a finish barrier, then it runs after every row is written and before the checkpoint moves; if it fails, nothing is left', async () => {
    const first = await BulkLoad.start(dataSource, projection, 0);
    const notes = [event('Noted', { text: 'late' }), event('Tally', { text: 'late' }), event('Tally', { text: 'late' })];
    await first.feed(notes);
    await first.finish(notes[2].position);
    expect(await rows(`SELECT count FROM bulk_toy_totals WHERE text = 'late'`)).toEqual([{ count: 3 }]);

    await dataSource.query('TRUNCATE bulk_toy_notes, bulk_toy_totals');
    await dataSource.query(`UPDATE projection_checkpoints SET position = 0 WHERE name = 'bulk-toy'`);
    const second = await BulkLoad.start(dataSource, projection, 0);
    const broken = [event('Noted', { text: 'x' }), event('Tally', { text: 'x', broken: true })];
    await second.feed(broken);
    const failure = await second.finish(broken[1].position).catch((error: unknown) => error);
    expect(String(failure)).toMatch(/bulk-toy: its last rows failed: .*no_such_column/);
    expect(await rows('SELECT count(*)::int AS n FROM bulk_toy_totals')).toEqual([{ n: 0 }]);
    expect(await rows(`SELECT position FROM projection_checkpoints WHERE name = 'bulk-toy'`)).toEqual([{ position: '0' }]);
  });
});
