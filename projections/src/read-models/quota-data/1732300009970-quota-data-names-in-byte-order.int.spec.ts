import { DataSource } from 'typeorm';
import { createTestDatabase, runMigration, type TestDatabase } from '#test/support/database';
import { QuotaDataNamesInByteOrder1732300009970 } from './1732300009970-quota-data-names-in-byte-order';

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
  /** The live projector's single-charge upsert (quota-data.projection.ts). */
  const upsert = (position: number, userId: number, username: string, model: string, hour: number, quota: number) =>
    dataSource.query(
      `INSERT INTO quota_data AS q (id, user_id, username, model_name, created_at, count, quota, token_used, position)
       VALUES ($1, $2, $3, $4, $5, 1, $6, 0, $1)
       ON CONFLICT (user_id, username, model_name, created_at) DO UPDATE SET
         count = q.count + 1, quota = q.quota + EXCLUDED.quota, position = EXCLUDED.position`,
      [position, userId, username, model, hour, quota],
    );
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
    const charges: Array<[number, string, string, number, number]> = [
      [1, 'Émile', 'gpt-4o', 3600, 10],
      [1, 'Émile', 'GPT-4o', 3600, 20],
      [1, 'emile', 'gpt-4o', 3600, 40],
      [2, 'zoë', 'gpt-4o', 3600, 80],
      [1, 'Émile', 'gpt-4o', 3600, 160],
      [1, 'Émile', 'gpt-4o', 7200, 320],
    ];
    for (const [index, charge] of charges.entries()) await upsert(index + 1, ...charge);
    const after = await rows();
    expect(after).toEqual([
      { id: 1, user_id: 1, username: 'Émile', model_name: 'gpt-4o', created_at: 3600, count: 2, quota: 170 },
      { id: 2, user_id: 1, username: 'Émile', model_name: 'GPT-4o', created_at: 3600, count: 1, quota: 20 },
      { id: 3, user_id: 1, username: 'emile', model_name: 'gpt-4o', created_at: 3600, count: 1, quota: 40 },
      { id: 4, user_id: 2, username: 'zoë', model_name: 'gpt-4o', created_at: 3600, count: 1, quota: 80 },
      { id: 6, user_id: 1, username: 'Émile', model_name: 'gpt-4o', created_at: 7200, count: 1, quota: 320 },
    ]);
    // A user's own period reads a range of the key (user, then hour), not every row of the user.
    await dataSource.transaction(async (manager) => {
      await manager.query('SET LOCAL enable_seqscan = off');
      const plan: Array<{ 'QUERY PLAN': string }> = await manager.query(
        `EXPLAIN SELECT id FROM quota_data WHERE created_at >= 0 AND created_at <= 5000 AND user_id = 1 ORDER BY created_at, id`,
      );
      expect(plan.map((line) => line['QUERY PLAN']).join('\n')).toMatch(
        /quota_data_row[\s\S]*Index Cond: \(\(user_id = 1\) AND \(created_at >= 0\) AND \(created_at <= 5000\)\)/,
      );
    });

    await runMigration(dataSource, migration, 'down');
    expect(await key()).toEqual(['UNIQUE (user_id, username, model_name, created_at)']);
    expect(await collations()).toEqual({ model_name: null, username: null });
    expect(await rows()).toEqual(after);
    await upsert(7, 1, 'Émile', 'gpt-4o', 7200, 640);

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
    await upsert(8, 1, 'Émile', 'gpt-4o', 7200, 1280);
    expect((await rows()).at(-1)).toEqual({
      id: 6,
      user_id: 1,
      username: 'Émile',
      model_name: 'gpt-4o',
      created_at: 7200,
      count: 3,
      quota: 2240,
    });
  });
});
