import type { AppConfig, EnvConfig, RuntimeRole } from './config/app-config';
import { runMigrations } from './infrastructure/database/data-source';
import { resolvePostgres } from './infrastructure/resolve-postgres';
import { resolveRedis } from './infrastructure/resolve-redis';

/**
 * Parsed environment → configuration with the embedded defaults applied: finds (or starts) Postgres and Redis,
 * logging one line for each, and runs pending migrations. Used by main.ts and every CLI.
 */
export async function loadRuntimeConfig(
  env: EnvConfig,
  roles: RuntimeRole[],
  log: (line: string) => void,
): Promise<{
  config: AppConfig;
  stop: () => Promise<void>;
}> {
  const postgres = await resolvePostgres({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR, embeddedPort: env.EMBEDDED_PG_PORT, log });
  const redis = await resolveRedis({ redisUrl: env.REDIS_URL, dataDir: env.DATA_DIR, allowInstall: env.ALLOW_PACKAGE_INSTALL, log });
  const applied = await runMigrations(postgres.url);
  log(applied.length ? `migrations: applied ${applied.join(', ')}` : 'migrations: up to date');
  return {
    config: { ...env, DATABASE_URL: postgres.url, REDIS_URL: redis.url, roles },
    stop: async () => {
      if (postgres.stop) await postgres.stop();
    },
  };
}
