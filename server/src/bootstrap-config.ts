import type { AppConfig, EnvConfig, RuntimeRole } from './config/app-config';
import { runMigrations } from './infrastructure/database/data-source';
import { resolvePostgres } from './infrastructure/resolve-postgres';
import { resolveRedis } from './infrastructure/resolve-redis';

/**
 * Parsed environment → configuration with the embedded defaults applied: finds (or starts) Postgres and Redis,
 * logging one line for each, and runs pending migrations (unless `migrate: false`: a supervisor's child, whose
 * supervisor ran them). Used by main.ts, the supervisor and every CLI. `stop` stops what was started.
 */
export async function loadRuntimeConfig(
  env: EnvConfig,
  roles: RuntimeRole[],
  log: (line: string) => void,
  options: { migrate?: boolean } = {},
): Promise<{
  config: AppConfig;
  stop: () => Promise<void>;
}> {
  const postgres = await resolvePostgres({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR, embeddedPort: env.EMBEDDED_PG_PORT, log });
  const redis = await resolveRedis({
    redisUrl: env.REDIS_URL,
    dataDir: env.DATA_DIR,
    allowInstall: env.ALLOW_PACKAGE_INSTALL,
    localPort: env.REDIS_PORT,
    log,
  }).catch(async (error: unknown) => {
    await postgres.stop?.();
    throw error;
  });
  if (options.migrate !== false) {
    const applied = await runMigrations(postgres.url).catch(async (error: unknown) => {
      await redis.stop?.();
      await postgres.stop?.();
      throw error;
    });
    log(applied.length ? `migrations: applied ${applied.join(', ')}` : 'migrations: up to date');
  }
  return {
    config: { ...env, DATABASE_URL: postgres.url, REDIS_URL: redis.url, roles },
    // The services this process started, stopped last (after everything that used them): Redis, then Postgres.
    stop: async () => {
      if (redis.stop) {
        await redis.stop();
        log('redis: stopped the redis-server started at start-up');
      }
      if (postgres.stop) {
        await postgres.stop();
        log('postgres: stopped the embedded server');
      }
    },
  };
}
