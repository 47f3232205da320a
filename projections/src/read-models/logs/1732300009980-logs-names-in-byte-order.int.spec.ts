import { DataSource } from 'typeorm';
import { createTestDatabase, runMigration, type TestDatabase } from '#test/support/database';
import { filterWhere, parseFilters } from '#server/modules/logs/log-query';
import { LogsNamesInByteOrder1732300009980 } from './1732300009980-logs-names-in-byte-order';
import { ensureLogPartitions } from './log-partitions';

/**
 * The logs' names in byte order, on every partition, those made later included: the filters answer the same rows,
 * and a prefix pattern on the model reads a range of its index, which no plain index can give under a linguistic
 * collation. `down` gives the database's collation back.
 */
describe('migration 1732300009980: the logs compare usernames and model names in byte order', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  const migration = new LogsNamesInByteOrder1732300009980();
  const OCTOBER = 1_790_812_800; // 2026-10-01T00:00:00Z
  const NOVEMBER = 1_793_491_200; // 2026-11-01T00:00:00Z
  /** The collation of username and model_name on logs and on each of its partitions. */
  const collations = async () => {
    const rows: Array<{ table_name: string; column_name: string; collation_name: string | null }> = await dataSource.query(
      `SELECT table_name, column_name, collation_name FROM information_schema.columns
        WHERE (table_name = 'logs' OR table_name LIKE 'logs\\_%') AND column_name IN ('username', 'model_name')`,
    );
    return new Set(rows.map((row) => row.collation_name));
  };
  /** What the admin's log list answers for these filters (log-query.ts, as the list and stat routes build it). */
  const filtered = async (query: Record<string, string>) => {
    const where = filterWhere(parseFilters(query, { username: true, channel: true }), { kind: 'all' });
    const rows: Array<{ id: string }> = await dataSource.query(`SELECT id FROM logs ${where.sql} ORDER BY id`, where.params);
    return rows.map((row) => Number(row.id));
  };
  const prefixPlan = () =>
    dataSource.transaction(async (manager) => {
      await manager.query('SET LOCAL enable_seqscan = off');
      const plan: Array<{ 'QUERY PLAN': string }> = await manager.query(`EXPLAIN SELECT id FROM logs WHERE model_name LIKE 'gpt-4%'`);
      return plan.map((line) => line['QUERY PLAN']).join('\n');
    });
  const insert = (id: number, createdAt: number, username: string, model: string) =>
    dataSource.query(
      `INSERT INTO logs (id, user_id, created_at, type, username, token_name, model_name, quota, prompt_tokens,
                         completion_tokens, use_time, is_stream, channel_id, token_id, "group")
       VALUES ($1, 1, $2, 2, $3, 'key', $4, 1, 1, 1, 1, false, 1, 1, 'default')`,
      [id, createdAt, username, model],
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await new DataSource({ type: 'postgres', url: database.url }).initialize();
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('filters the same rows, reads a model prefix from the index, on partitions made before and after', async () => {
    await dataSource.transaction((manager) => ensureLogPartitions(manager, [OCTOBER]));
    expect(await collations()).toEqual(new Set(['C']));
    await insert(1, OCTOBER + 10, 'Émile', 'gpt-4o');
    await insert(2, OCTOBER + 20, 'emile', 'GPT-4o');
    await insert(3, OCTOBER + 30, 'zoë', 'gpt-4o-mini');
    await insert(4, OCTOBER + 40, 'Émile', 'claude-3-5-sonnet');
    // A month made after the migration has the same collation as its parent.
    await dataSource.transaction((manager) => ensureLogPartitions(manager, [NOVEMBER]));
    expect(await collations()).toEqual(new Set(['C']));
    await insert(5, NOVEMBER + 10, 'Émile', 'gpt-4o');
    const answers = async () => ({
      user: await filtered({ username: 'Émile' }),
      exact: await filtered({ model_name: 'gpt-4o' }),
      prefix: await filtered({ model_name: 'gpt-4%' }),
      both: await filtered({ username: 'Émile', model_name: 'gpt%' }),
    });
    const inByteOrder = await answers();
    expect(inByteOrder).toEqual({ user: [1, 4, 5], exact: [1, 5], prefix: [1, 3, 5], both: [1, 5] });
    expect(await prefixPlan()).toMatch(
      /Index Cond: \(\(\(model_name\)::text >= 'gpt-4'::text\) AND \(\(model_name\)::text < 'gpt-5'::text\)\)/,
    );

    await runMigration(dataSource, migration, 'down');
    expect(await collations()).toEqual(new Set([null]));
    expect(await answers()).toEqual(inByteOrder);
    // The database's linguistic collation (C.UTF-8 here, en_US on many installations) gives LIKE no index range.
    expect(await prefixPlan()).not.toMatch(/Index Cond/);

    await runMigration(dataSource, migration, 'up');
    expect(await collations()).toEqual(new Set(['C']));
    expect(await answers()).toEqual(inByteOrder);
  });
});
