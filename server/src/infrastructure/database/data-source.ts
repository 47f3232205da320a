import { DataSource, type DataSourceOptions } from 'typeorm';
import { migrations } from './migrations';

/** `poolSize`: connections per process (DATABASE_POOL_SIZE). */
export function dataSourceOptions(url: string, entities: DataSourceOptions['entities'] = [], poolSize = 20): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities,
    migrations,
    migrationsTableName: 'migrations',
    synchronize: false,
    logging: false,
    extra: { max: poolSize },
  };
}

/** Migration lock id: any constant, shared by every process of the installation. */
const MIGRATION_LOCK = 7_311_001;

/**
 * Runs pending migrations under a Postgres advisory lock, so api, worker and projector processes that start
 * together never race each other.
 */
export async function runMigrations(url: string): Promise<string[]> {
  const source = new DataSource({ ...dataSourceOptions(url), extra: { max: 2 } });
  await source.initialize();
  const runner = source.createQueryRunner();
  try {
    await runner.connect();
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const applied = await source.runMigrations({ transaction: 'each' });
    return applied.map((migration) => migration.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
    await source.destroy();
  }
}
