import { DataSource } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { dataSourceOptions } from '#server/infrastructure/database/data-source';
import { CheckDatabaseHandler, DatabaseUnavailableError } from './check-database.handler';

describe('CheckDatabaseHandler (GET /api/status/test)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase({ migrate: false });
    dataSource = await new DataSource({ ...dataSourceOptions(database.url), extra: { max: 1 } }).initialize();
  });
  afterAll(async () => {
    if (dataSource.isInitialized) await dataSource.destroy();
    await database.drop();
  });

  it('passes while the database answers', async () => {
    await expect(new CheckDatabaseHandler(dataSource).execute()).resolves.toBeUndefined();
  });

  it('answers HTTP 503 "数据库连接失败" when the database is gone', async () => {
    // A real server that refuses connections: nothing listens on port 1.
    const unreachable = new DataSource({
      ...dataSourceOptions('postgres://postgres@127.0.0.1:1/none'),
      extra: { max: 1, connectionTimeoutMillis: 500 },
    });
    const error = await new CheckDatabaseHandler(unreachable).execute().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DatabaseUnavailableError);
    expect(error).toMatchObject({ message: '数据库连接失败', httpStatus: 503 });
  });

  it('answers 503 when the database is dropped under a live pool', async () => {
    await dataSource.query('SELECT 1');
    await database.drop(); // WITH (FORCE): the pool's connection is killed and reconnecting finds no database
    const error = await new CheckDatabaseHandler(dataSource).execute().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DatabaseUnavailableError);
  });
});
