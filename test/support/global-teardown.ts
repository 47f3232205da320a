import { Client } from 'pg';

export default async function globalTeardown(): Promise<void> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    // Drop databases left by test files of this run (a file that crashed may not have dropped its own).
    const admin = new URL(url);
    admin.pathname = '/postgres';
    const client = new Client({ connectionString: admin.toString() });
    await client.connect();
    try {
      const { rows } = await client.query<{ datname: string }>(
        `SELECT datname FROM pg_database WHERE datname LIKE 'tg\\_t\\_' || $1 || '\\_%'`,
        [process.env.TEST_RUN_ID ?? String(process.pid)],
      );
      for (const { datname } of rows) {
        await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`).catch(() => undefined);
      }
    } finally {
      await client.end();
    }
  }
  const stop = (globalThis as Record<string, unknown>).__TOLLGATE_STOP_PG__ as (() => Promise<void>) | undefined;
  if (stop) await stop();
}
