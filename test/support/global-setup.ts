// Relative imports: Jest loads its global set-up without the moduleNameMapper, so an alias would resolve into dist/.
import { resolvePostgres } from '../../server/src/infrastructure/resolve-postgres';
import { resolveRedis } from '../../server/src/infrastructure/resolve-redis';

/**
 * Finds Postgres and Redis exactly as `npm start` does (env, local server, embedded/started), then hands the
 * URLs to every test worker. Each test file makes its own database (test/support/database.ts) and its own Redis
 * prefix, so files can run in parallel.
 */
export default async function globalSetup(): Promise<void> {
  const log = (line: string) => process.stdout.write(`[test setup] ${line}\n`);
  const postgres = await resolvePostgres({
    databaseUrl: process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL,
    dataDir: process.env.DATA_DIR ?? './data',
    databaseName: 'tollgate_test',
    log,
  });
  const redis = await resolveRedis({
    redisUrl: process.env.TEST_REDIS_URL ?? process.env.REDIS_URL,
    dataDir: process.env.DATA_DIR ?? './data',
    allowInstall: true,
    log,
  });
  process.env.TEST_DATABASE_URL = postgres.url;
  // Workers inherit it: every database this run makes is named after the run, so the teardown drops only its
  // own and several runs (CI beside a developer's run) can share one Postgres.
  process.env.TEST_RUN_ID = String(process.pid);
  process.env.TEST_REDIS_URL = redis.url;
  (globalThis as Record<string, unknown>).__TOLLGATE_STOP_PG__ = postgres.stop;
}
