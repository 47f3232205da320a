import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import Redis from 'ioredis';

export interface ResolvedRedis {
  url: string;
  source: 'env' | 'local' | 'started';
  /** Only for a redis-server this process started: stops it (SIGTERM, then SIGKILL after `timeoutMs`). */
  stop?: (timeoutMs?: number) => Promise<void>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops the daemonised redis-server whose pid file is `pidFile`. It is gone once the pid is gone or the pid file is
 * removed (redis-server removes it on a clean exit; a zombie waiting for its reaper still answers kill 0).
 */
export async function stopStartedRedis(pidFile: string, timeoutMs = 10_000): Promise<void> {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, 'utf8').trim());
  } catch {
    return; // no pid file: not running
  }
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + timeoutMs;
  while (alive(pid) && existsSync(pidFile)) {
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGKILL');
      return;
    }
    await new Promise((done) => setTimeout(done, 50));
  }
}

async function ping(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1000, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

function which(binary: string): string | undefined {
  // PATH is the platform's search path, not configuration of the product.
  for (const dir of (process.env.PATH ?? '').split(':').concat(['/usr/bin', '/usr/sbin', '/usr/local/bin'])) {
    const candidate = resolve(dir, binary);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * REDIS_URL if set; else 127.0.0.1:6379 when it answers; else a `redis-server` started on `<dataDir>/redis`,
 * installing Debian's package first when it is missing and installing is allowed.
 */
export async function resolveRedis(options: {
  redisUrl?: string;
  dataDir: string;
  allowInstall: boolean;
  log?: (line: string) => void;
  /** The local port to probe and, when nothing answers, to start redis-server on (default 6379). */
  localPort?: number;
}): Promise<ResolvedRedis> {
  const log = options.log ?? (() => undefined);
  if (options.redisUrl) {
    log(`redis: using REDIS_URL`);
    return { url: options.redisUrl, source: 'env' };
  }
  const port = options.localPort ?? 6379;
  const local = `redis://127.0.0.1:${port}`;
  if (await ping(local)) {
    log(`redis: REDIS_URL unset, using the local server at ${local}`);
    return { url: local, source: 'local' };
  }
  let binary = which('redis-server');
  if (!binary) {
    if (!options.allowInstall || process.getuid?.() !== 0 || !which('apt-get')) {
      throw new Error(
        'No Redis found: REDIS_URL is unset, nothing answers on 127.0.0.1:6379 and redis-server is not installed. ' +
          'Install it (Debian/Ubuntu: `apt-get install -y redis-server`; macOS: `brew install redis`) or set REDIS_URL.',
      );
    }
    log('redis: redis-server missing, installing the OS package (apt-get install -y redis-server)');
    execFileSync('bash', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server'], {
      stdio: 'ignore',
    });
    binary = which('redis-server');
    if (!binary) throw new Error('apt-get install redis-server did not provide redis-server; set REDIS_URL');
  }
  const dir = resolve(options.dataDir, 'redis');
  mkdirSync(dir, { recursive: true });
  const pidFile = resolve(dir, 'redis.pid');
  const child = spawn(
    binary,
    [
      '--bind',
      '127.0.0.1',
      '--port',
      String(port),
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--daemonize',
      'yes',
      '--pidfile',
      pidFile,
      '--logfile',
      resolve(dir, 'redis.log'),
    ],
    { stdio: 'ignore' },
  );
  await new Promise((done) => child.on('exit', done));
  for (let attempt = 0; attempt < 50; attempt++) {
    if (await ping(local)) {
      log(`redis: REDIS_URL unset and nothing answered; started ${binary} on ${local} with data in ${dir}`);
      return { url: local, source: 'started', stop: (timeoutMs) => stopStartedRedis(pidFile, timeoutMs) };
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  throw new Error(`Started ${binary} but it does not answer on ${local}; see ${resolve(dir, 'redis.log')}`);
}
