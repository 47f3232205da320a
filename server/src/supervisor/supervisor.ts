import { type ChildProcess, spawn } from 'node:child_process';
import { LinePrefixer } from './line-prefixer';

/** One supervised child: a name (its log prefix) and how to start it. */
export interface ChildSpec {
  name: string;
  args: string[];
  env: Record<string, string | undefined>;
}

export interface SupervisorOptions {
  /** The program every child runs (process.execPath) and the node flags before its args. */
  command: string;
  execArgv?: string[];
  children: ChildSpec[];
  log: (line: string) => void;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
  /** First restart delay, doubled after every crash up to `maxBackoffMs`; reset once a child ran `stableMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  stableMs?: number;
  /** A child that crashes this many times in a row before running `stableMs` ends the supervisor (`onGiveUp`). */
  maxQuickCrashes?: number;
  onGiveUp?: (name: string) => void;
}

interface Running {
  spec: ChildSpec;
  process: ChildProcess | null;
  startedAt: number;
  quickCrashes: number;
  restartTimer: NodeJS.Timeout | null;
  exited: Promise<void>;
}

/**
 * Runs its children, forwards their output to one stream with a prefix per child, restarts a child that exits on
 * its own (with backoff), and stops them all on `stop()`: SIGTERM to each, then SIGKILL to what is left at the
 * deadline.
 */
export class Supervisor {
  private readonly children = new Map<string, Running>();
  private stopping = false;

  constructor(private readonly options: SupervisorOptions) {}

  start(): void {
    for (const spec of this.options.children) {
      const running: Running = { spec, process: null, startedAt: 0, quickCrashes: 0, restartTimer: null, exited: Promise.resolve() };
      this.children.set(spec.name, running);
      this.launch(running);
    }
  }

  /** The pid of each running child, by name. */
  pids(): Record<string, number | undefined> {
    return Object.fromEntries([...this.children].map(([name, running]) => [name, running.process?.pid]));
  }

  /** SIGTERM to every child; SIGKILL to those still running after `timeoutMs`. Resolves true when all stopped in time. */
  async stop(timeoutMs: number): Promise<boolean> {
    this.stopping = true;
    const all = [...this.children.values()];
    for (const running of all) {
      if (running.restartTimer) clearTimeout(running.restartTimer);
      running.restartTimer = null;
      if (running.process && running.process.exitCode === null && running.process.signalCode === null) running.process.kill('SIGTERM');
    }
    let timer: NodeJS.Timeout | undefined;
    const inTime = await Promise.race([
      Promise.all(all.map((running) => running.exited)).then(() => true),
      new Promise<boolean>((done) => (timer = setTimeout(() => done(false), timeoutMs))),
    ]);
    clearTimeout(timer);
    if (!inTime) {
      for (const running of all) {
        if (running.process && running.process.exitCode === null && running.process.signalCode === null) {
          this.options.log(`${running.spec.name} (pid ${running.process.pid}) did not stop within ${timeoutMs} ms: SIGKILL`);
          running.process.kill('SIGKILL');
        }
      }
      await Promise.all(all.map((running) => running.exited));
    }
    return inTime;
  }

  private launch(running: Running): void {
    const { spec } = running;
    const child = spawn(this.options.command, [...(this.options.execArgv ?? []), ...spec.args], {
      env: spec.env,
      // The IPC channel is how a child knows its supervisor is gone, even SIGKILLed: it closes (main.ts stops then).
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    child.channel?.unref();
    running.process = child;
    running.startedAt = Date.now();
    const out = new LinePrefixer(`[${spec.name}] `, this.options.stdout ?? ((text) => process.stdout.write(text)));
    const err = new LinePrefixer(`[${spec.name}] `, this.options.stderr ?? ((text) => process.stderr.write(text)));
    child.stdout!.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => err.push(chunk));
    running.exited = new Promise((done) =>
      child.once('close', (code, signal) => {
        out.flush();
        err.flush();
        this.exited(running, code, signal);
        done();
      }),
    );
    child.once('error', (error) => this.options.log(`${spec.name}: could not start: ${error.message}`));
    this.options.log(`${spec.name}: started (pid ${child.pid})`);
  }

  private exited(running: Running, code: number | null, signal: NodeJS.Signals | null): void {
    const { spec } = running;
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (this.stopping) {
      this.options.log(`${spec.name}: stopped (${how})`);
      return;
    }
    const stable = this.options.stableMs ?? 30_000;
    const ranFor = Date.now() - running.startedAt;
    running.quickCrashes = ranFor >= stable ? 1 : running.quickCrashes + 1;
    if (running.quickCrashes > (this.options.maxQuickCrashes ?? 5)) {
      this.options.log(`${spec.name}: exited (${how}) ${running.quickCrashes} times in a row within ${stable} ms of starting: giving up`);
      this.options.onGiveUp?.(spec.name);
      return;
    }
    const delay = Math.min(this.options.maxBackoffMs ?? 30_000, (this.options.backoffMs ?? 500) * 2 ** (running.quickCrashes - 1));
    this.options.log(`${spec.name}: exited (${how}) after ${ranFor} ms; restarting in ${delay} ms`);
    running.restartTimer = setTimeout(() => {
      running.restartTimer = null;
      if (!this.stopping) this.launch(running);
    }, delay);
  }
}
