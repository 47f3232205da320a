import { DataSource } from 'typeorm';
import { createTestDatabase, runMigration, type TestDatabase } from '#test/support/database';
import { restoreSnapshot, takeSnapshot } from '#projections/runner/projection-snapshot';
import { StatementReader } from '#server/modules/statement/statement.reader';
import { toStatementLineJson } from '#server/modules/statement/statement.serializer';
import type { StatementFilters } from '#server/modules/statement/statement-query';
import { handledBy } from '../../../test/batch-equivalence';
import { LedgerBuilder, random, randomEvents } from '../../../test/mixed-ledger';
import { CompactStatementChargeLines1732300009960 } from './1732300009960-compact-statement-charge-lines';
import { StatementProjection } from './statement.projection';

const projection = new StatementProjection();
const everything: StatementFilters = { kind: null, startTimestamp: null, endTimestamp: null };

/**
 * An installation whose statement lines were written before the compact form: its lines (and a snapshot of them)
 * keep their ref and reason, the reader gives the same statement from either form, new charges are stored compact,
 * and `down` gives every compact line back its ref and reason as the reader shows them.
 */
describe('migration 1732300009960: relay charges stored compact in statement_lines', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let reader: StatementReader;
  const migration = new CompactStatementChargeLines1732300009960();
  // Every other event whose envelope is stored whole gets a uuid as its request id, as the console's requests have.
  const events = handledBy(projection, randomEvents(new LedgerBuilder('compact'), random(11), 400)).map((event, index) =>
    index % 2 === 0 && event.metadata?.correlationId
      ? { ...event, metadata: { ...event.metadata, correlationId: `0190a1b2-c3d4-7e5f-8a9b-${String(index).padStart(12, '0')}` } }
      : event,
  );
  const users = [...new Set(events.map((event) => Number(event.streamId.split('-')[1])))];
  const statements = async () => {
    const all: unknown[] = [];
    for (const user of users) {
      for await (const rows of reader.all(user, everything)) all.push(...rows.map((row) => toStatementLineJson(row, 'admin')));
    }
    return all;
  };
  const apply = (slice: typeof events) =>
    dataSource.transaction(async (manager) => {
      for (const event of slice) await projection.apply(event, manager);
    });
  const kindIndex = async () =>
    (await dataSource.query(`SELECT indexdef FROM pg_indexes WHERE indexname = 'statement_lines_user_kind'`)).map(
      (row: { indexdef: string }) => row.indexdef,
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await new DataSource({ type: 'postgres', url: database.url }).initialize();
    reader = new StatementReader(dataSource);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('reads lines of both forms as one statement, and down gives the compact ones back their ref and reason', async () => {
    const half = Math.floor(events.length / 2);
    await apply(events.slice(0, half));
    const compactRows = await dataSource.query(`SELECT count(*)::int AS n FROM statement_lines WHERE ref IS NULL`);
    expect(compactRows[0].n).toBeGreaterThan(50);
    const [{ uuids }] = await dataSource.query(`SELECT count(request_uuid)::int AS uuids FROM statement_lines WHERE request_id IS NULL`);
    expect(uuids).toBeGreaterThan(20);
    const early = await statements();

    // Back to the shape before: every compact charge gets its ref and reason, as the reader showed them.
    await runMigration(dataSource, migration, 'down');
    expect(await kindIndex()).toEqual([expect.not.stringContaining('WHERE')]);
    const old: Array<Shown & { position: string }> = await dataSource.query(
      'SELECT position, ref, reason, request_id FROM statement_lines ORDER BY user_id, position DESC',
    );
    const byPosition = new Map(early.map((line) => [String((line as { id: number }).id), line as Shown]));
    expect(old.length).toBe(early.length);
    for (const row of old) expect(pick(row)).toEqual(pick(byPosition.get(row.position)!));
    await dataSource.query(`INSERT INTO projection_checkpoints (name, position) VALUES ($1, $2)`, [
      projection.name,
      events[half - 1].position,
    ]);
    const snapshot = await takeSnapshot(dataSource, [projection], { reason: 'before the compact lines' });
    // What a rebuild that died leaves: the by-kind index dropped, its old definition recorded for the projector.
    await dataSource.query(
      `INSERT INTO projection_deferred_indexes (index_name, table_name, definition)
       SELECT indexname, tablename, indexdef FROM pg_indexes WHERE indexname = 'statement_lines_user_kind'`,
    );
    await dataSource.query('DROP INDEX statement_lines_user_kind');

    await runMigration(dataSource, migration, 'up');
    expect(await kindIndex()).toEqual([
      expect.stringMatching(/\(user_id, kind, "position" DESC\) WHERE \(kind <> 'relay_charge'::text\)$/),
    ]);
    expect(await dataSource.query('SELECT index_name FROM projection_deferred_indexes')).toEqual([]);
    // The old lines keep their form and read as before; the next charges are stored compact.
    expect(await statements()).toEqual(early);
    await apply(events.slice(half));
    const all = await statements();
    const [{ old: oldForm, compact }] = await dataSource.query(
      `SELECT count(*) FILTER (WHERE ref IS NOT NULL AND kind = 'relay_charge')::int AS old,
              count(*) FILTER (WHERE ref IS NULL)::int AS compact FROM statement_lines`,
    );
    expect(oldForm).toBe(compactRows[0].n);
    expect(compact).toBeGreaterThan(50);

    // The same events into the compact table from empty give the same statement; so does the old snapshot restored.
    await dataSource.query('TRUNCATE statement_lines');
    await apply(events);
    expect(await statements()).toEqual(all);
    await dataSource.transaction(async (manager) => {
      await manager.query('TRUNCATE statement_lines');
      await restoreSnapshot(manager, snapshot.id, [projection]);
    });
    expect(await statements()).toEqual(early);
  });
});

/** What `down` must give back to a line: its ref, reason and request id as the statement showed them. */
type Shown = { ref: unknown; reason: string; request_id: string };

function pick(line: Shown): Shown {
  return { ref: line.ref, reason: line.reason, request_id: line.request_id };
}
