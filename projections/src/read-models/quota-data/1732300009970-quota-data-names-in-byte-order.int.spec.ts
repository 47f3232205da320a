import { DataSource } from 'typeorm';
import { createTestDatabase, runMigration, type TestDatabase } from '#test/support/database';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { LedgerBuilder } from '../../../test/mixed-ledger';
import { QuotaDataNamesInByteOrder1732300009970 } from './1732300009970-quota-data-names-in-byte-order';
import { QuotaDataProjection } from './quota-data.projection';

/**
 * The dashboard's rows keyed numbers first and their names in byte order: the same rows, the same upsert, the same
 * answers; `down` gives the old key and collation back, and `up` replaces the old key a dead rebuild left recorded.
 */
describe('migration 1732300009970: quota_data keyed numbers first, names in byte order', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  const migration = new QuotaDataNamesInByteOrder1732300009970();
  const key = async () => {
    const rows = await dataSource.query(
      `SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conname = 'quota_data_row'`,
    );
    return rows.map((row: { definition: string }) => row.definition);
  };
  const collations = async () => {
    const rows: Array<{ column_name: string; collation_name: string | null }> = await dataSource.query(
      `SELECT column_name, collation_name FROM information_schema.columns
        WHERE table_name = 'quota_data' AND column_name IN ('username', 'model_name') ORDER BY column_name`,
    );
    return Object.fromEntries(rows.map((row) => [row.column_name, row.collation_name]));
  };
  const projection = new QuotaDataProjection();
  const builder = new LedgerBuilder('byte-order');
  const HOUR = 1_732_600_800;
  /** A charge of `quota` (and 2 tokens) by `userId` under `username` on `model`, in the hour `hour`. */
  const charge = (userId: number, username: string, model: string, hour: number, quota: number) =>
    builder.charge(userId, { username, modelName: model, createdAt: hour + 100, quota, promptTokens: 1, completionTokens: 1 });
  /** Through the live projector, each path: one event at a time (`apply`) and a batch (`applyBatch`, its unnest join). */
  const applied = (events: RecordedEvent[]) =>
    dataSource.transaction(async (manager) => {
      for (const event of events) await projection.apply(event, manager);
    });
  const batched = (events: RecordedEvent[]) => dataSource.transaction((manager) => projection.applyBatch(events, manager));
  const rows = () =>
    dataSource.query('SELECT id::int, user_id, username, model_name, created_at::int, count, quota::int FROM quota_data ORDER BY id');

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await new DataSource({ type: 'postgres', url: database.url }).initialize();
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('keys the rows numbers first with the names in byte order, and folds the same charges into the same rows', async () => {
    expect(await key()).toEqual(['UNIQUE (user_id, created_at, model_name, username)']);
    expect(await collations()).toEqual({ model_name: 'C', username: 'C' });
    // Names that a linguistic collation would order differently from their bytes, and one renamed user.
    const first = [
      charge(1, 'Émile', 'gpt-4o', HOUR, 10),
      charge(1, 'Émile', 'GPT-4o', HOUR, 20),
      charge(1, 'emile', 'gpt-4o', HOUR, 40),
      charge(2, 'zoë', 'gpt-4o', HOUR, 80),
    ];
    const later = [charge(1, 'Émile', 'gpt-4o', HOUR, 160), charge(1, 'Émile', 'gpt-4o', HOUR + 3600, 320)];
    await applied(first);
    await batched(later);
    const row = (event: RecordedEvent, userId: number, username: string, model: string, hour: number, count: number, quota: number) => ({
      id: event.position,
      user_id: userId,
      username,
      model_name: model,
      created_at: hour,
      count,
      quota,
    });
    const after = await rows();
    expect(after).toEqual([
      row(first[0], 1, 'Émile', 'gpt-4o', HOUR, 2, 170),
      row(first[1], 1, 'Émile', 'GPT-4o', HOUR, 1, 20),
      row(first[2], 1, 'emile', 'gpt-4o', HOUR, 1, 40),
      row(first[3], 2, 'zoë', 'gpt-4o', HOUR, 1, 80),
      row(later[1], 1, 'Émile', 'gpt-4o', HOUR + 3600, 1, 320),
    ]);
    // A user's own period reads a range of the key (user, then hour), not every row of the user.
    await dataSource.transaction(async (manager) => {
      await manager.query('SET LOCAL enable_seqscan = off');
      const plan: Array<{ 'QUERY PLAN': string }> = await manager.query(
        `EXPLAIN SELECT id FROM quota_data WHERE created_at >= ${HOUR} AND created_at <= ${HOUR + 3600} AND user_id = 1 ORDER BY created_at, id`,
      );
      expect(plan.map((line) => line['QUERY PLAN']).join('\n')).toMatch(
        new RegExp(
          `quota_data_row[\\s\\S]*Index Cond: \\(\\(user_id = 1\\) AND \\(created_at >= ${HOUR}\\) AND \\(created_at <= ${HOUR + 3600}\\)\\)`,
        ),
      );
    });

    await runMigration(dataSource, migration, 'down');
    expect(await key()).toEqual(['UNIQUE (user_id, username, model_name, created_at)']);
    expect(await collations()).toEqual({ model_name: null, username: null });
    expect(await rows()).toEqual(after);
    await batched([charge(1, 'Émile', 'gpt-4o', HOUR + 3600, 640)]);

    // A rebuild died with the key dropped and its old definition recorded: up drops the record with the old key.
    await dataSource.query('ALTER TABLE quota_data DROP CONSTRAINT quota_data_row');
    await dataSource.query(
      `INSERT INTO projection_deferred_indexes (index_name, table_name, definition)
       VALUES ('quota_data_row', 'quota_data', 'ALTER TABLE quota_data ADD CONSTRAINT quota_data_row UNIQUE (user_id, username, model_name, created_at)')`,
    );
    await runMigration(dataSource, migration, 'up');
    expect(await key()).toEqual(['UNIQUE (user_id, created_at, model_name, username)']);
    expect(await collations()).toEqual({ model_name: 'C', username: 'C' });
    expect(await dataSource.query(`SELECT index_name FROM projection_deferred_indexes`)).toEqual([]);
    await applied([charge(1, 'Émile', 'gpt-4o', HOUR + 3600, 1280)]);
    expect((await rows()).at(-1)).toEqual(row(later[1], 1, 'Émile', 'gpt-4o', HOUR + 3600, 3, 2240));
  });
});
