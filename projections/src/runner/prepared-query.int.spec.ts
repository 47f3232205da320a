import { DataSource, QueryFailedError } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { dataSourceOptions } from '#server/infrastructure/database/data-source';
import { setPreparedStatements, statementName } from '#server/infrastructure/database/named-statements';
import { queryPrepared, queryPreparedOn } from './prepared-query';

const UPSERT = `WITH item AS (SELECT * FROM unnest($1::text[], $2::bigint[]) AS i(key, amount))
  INSERT INTO prepared_totals (key, total) SELECT key, sum(amount) FROM item GROUP BY key
  ON CONFLICT (key) DO UPDATE SET total = prepared_totals.total + EXCLUDED.total
  RETURNING key, total`;
const READ = 'SELECT key, total FROM prepared_totals WHERE key = ANY($1) ORDER BY key';

describe('queryPrepared: the projector batch statements as named prepared statements (real Postgres)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;

  const totals = async () =>
    ((await dataSource.query('SELECT key, total FROM prepared_totals ORDER BY key')) as Array<{ key: string; total: string }>).map(
      (row) => [row.key, Number(row.total)],
    );

  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
    dataSource = await new DataSource({ ...dataSourceOptions(database.url), migrations: [], extra: { max: 2 } }).initialize();
    await dataSource.query('CREATE TABLE prepared_totals (key text PRIMARY KEY, total bigint NOT NULL CHECK (total >= 0))');
  });
  beforeEach(async () => {
    setPreparedStatements(true);
    await dataSource.query('TRUNCATE prepared_totals');
  });
  afterAll(async () => {
    setPreparedStatements(true);
    await dataSource?.destroy();
    await database?.drop();
  });

  it('given prepared statements on, when a statement runs twice in a transaction, then it is prepared once on that connection under its name and answers its rows', async () => {
    const result = await dataSource.transaction(async (manager) => {
      const first = await queryPrepared<{ key: string; total: string }>(manager, UPSERT, [
        ['a', 'b', 'a'],
        [1, 2, 3],
      ]);
      const second = await queryPrepared<{ key: string; total: string }>(manager, UPSERT, [['b'], [5]]);
      const prepared = (await manager.query('SELECT name, statement FROM pg_prepared_statements')) as Array<{
        name: string;
        statement: string;
      }>;
      return { first, second, prepared };
    });

    expect(result.first.map((row) => [row.key, Number(row.total)]).sort()).toEqual([
      ['a', 4],
      ['b', 2],
    ]);
    expect(result.second.map((row) => [row.key, Number(row.total)])).toEqual([['b', 7]]);
    expect(result.prepared).toEqual([{ name: statementName(UPSERT), statement: UPSERT }]);
    expect(await totals()).toEqual([
      ['a', 4],
      ['b', 7],
    ]);
  });

  it('given prepared statements off (PG_PREPARED_STATEMENTS=off), when the statement runs, then nothing is prepared and the rows are the same', async () => {
    setPreparedStatements(false);
    const text = `${UPSERT} -- off`; // a text no earlier test prepared on a pooled connection
    const result = await dataSource.transaction(async (manager) => {
      const rows = await queryPrepared<{ key: string; total: string }>(manager, text, [
        ['a', 'a'],
        [2, 3],
      ]);
      const prepared = (await manager.query('SELECT statement FROM pg_prepared_statements')) as Array<{ statement: string }>;
      return { rows, prepared: prepared.map((row) => row.statement) };
    });

    expect(result.rows.map((row) => [row.key, Number(row.total)])).toEqual([['a', 5]]);
    expect(result.prepared).not.toContain(text);
    expect(await totals()).toEqual([['a', 5]]);
  });

  it('given a statement Postgres refuses, when it runs in a batch transaction, then it throws a QueryFailedError with the driver error and the transaction writes nothing', async () => {
    const failing = dataSource.transaction(async (manager) => {
      await queryPrepared(manager, UPSERT, [['a'], [10]]);
      await queryPrepared(manager, UPSERT, [['b'], [-1]]); // violates the CHECK
    });

    await expect(failing).rejects.toBeInstanceOf(QueryFailedError);
    await expect(failing).rejects.toMatchObject({ driverError: { code: '23514' }, query: UPSERT });
    expect(await totals()).toEqual([]);
  });

  it('given no transaction, when queryPreparedOn runs more statements than the pool has connections, then each gives its connection back', async () => {
    await dataSource.query('INSERT INTO prepared_totals (key, total) VALUES ($1, $2), ($3, $4)', ['x', 1, 'y', 2]);
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await queryPreparedOn<{ key: string; total: string }>(dataSource, READ, [['x', 'y']]));

    for (const rows of answers)
      expect(rows.map((row) => [row.key, Number(row.total)])).toEqual([
        ['x', 1],
        ['y', 2],
      ]);
  });

  it('given a manager without a query runner, when a statement runs, then it goes through TypeORM unnamed and answers the same rows', async () => {
    await dataSource.query('INSERT INTO prepared_totals (key, total) VALUES ($1, $2)', ['z', 3]);

    const rows = await queryPrepared<{ key: string; total: string }>(dataSource.manager, READ, [['z']]);

    expect(rows.map((row) => [row.key, Number(row.total)])).toEqual([['z', 3]]);
  });
});
