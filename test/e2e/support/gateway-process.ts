import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

/**
 * The real gateway as a child process (`server/src/main.ts`, every role), for tests that kill it. It runs the
 * TypeScript sources through test/support/swc-register.js, so it needs no build and always runs this tree.
 */
export interface GatewayProcess {
  readonly port: number;
  readonly baseUrl: string;
  readonly pid: number;
  /** Everything the process printed (stdout and stderr). */
  output(): string;
  /** SIGKILL: no shutdown hook runs, in-flight requests die mid-way. Resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM and wait (a clean stop; SIGKILL after 10 s): how it ended. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Starts the gateway on `port` with `env` (and `--role`, default all) and waits until GET /api/status answers (or the
 * process dies); a worker or projector (no HTTP) until it logged that it started (its signal handlers are in place).
 */
export async function startGateway(options: {
  port: number;
  env: Record<string, string>;
  role?: 'all' | 'api' | 'worker' | 'projector';
  timeoutMs?: number;
}): Promise<GatewayProcess> {
  const { port } = options;
  const child = spawn(
    process.execPath,
    [
      '--require',
      join(ROOT, 'test', 'support', 'swc-register.js'),
      join(ROOT, 'server', 'src', 'main.ts'),
      '--role',
      options.role ?? 'all',
    ],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        NODE_ENV: 'test',
        HOST: '127.0.0.1',
        PORT: String(port),
        CONSOLE_DIST: '/nonexistent-console-dist',
        SESSION_SECRET: 'test-session-secret-test-session-secret',
        ALLOW_PACKAGE_INSTALL: 'false',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const background = options.role === 'worker' || options.role === 'projector';
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the gateway exited (${child.exitCode ?? child.signalCode}) before it answered:\n${output.slice(-4000)}`);
    }
    if (background) {
      // A worker or projector serves no HTTP: it is up once it logged that its signal handlers are in place.
      if (output.includes('started: SIGTERM or SIGINT stops it')) break;
    } else {
      try {
        const response = await fetch(`${baseUrl}/api/status`);
        if (response.ok) break;
      } catch {
        // not listening yet
      }
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the gateway did not answer /api/status within the timeout:\n${output.slice(-4000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    port,
    baseUrl,
    pid: child.pid!,
    output: () => output,
    async kill() {
      child.kill('SIGKILL');
      await exited(child);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited(child);
        clearTimeout(timer);
      }
      return { code: child.exitCode, signal: child.signalCode };
    },
  };
}
