import type { DataSource } from 'typeorm';
import { ProjectionTimeoutError } from './projection';
import type { ProjectionRegistry } from './projection-registry';

export interface ProjectionWaiterOptions {
  /** Poll interval of the checkpoint table while someone waits. */
  pollIntervalMs: number;
  /** Used when waitFor is called without a timeout (READ_YOUR_WRITES_TIMEOUT_MS). */
  defaultTimeoutMs: number;
}

interface Waiter {
  position: number;
  timeoutMs: number;
  resolve: () => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout;
}

/**
 * Read-your-writes for console commands: after appending at position p, `await waiter.waitFor(p)` returns once
 * every registered projection has applied p, so the answer (and the next list the browser loads) shows the write.
 * Works in any process: one shared poll of `projection_checkpoints` serves all waiters of the process, and a
 * runner in the same process wakes them directly after each commit.
 */
export class ProjectionWaiter {
  private readonly waiters = new Set<Waiter>();
  private polling = false;
  private reached = 0;
  private closed = false;
  private wakePoll: (() => void) | null = null;

  constructor(
    private readonly registry: ProjectionRegistry,
    private readonly dataSource: DataSource,
    private readonly options: ProjectionWaiterOptions,
  ) {}

  waitFor(position: number, timeoutMs: number = this.options.defaultTimeoutMs): Promise<void> {
    if (position <= 0 || this.registry.names().length === 0) return Promise.resolve();
    if (this.closed) return Promise.reject(new Error('ProjectionWaiter is closed'));
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        position,
        timeoutMs,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters.delete(waiter);
          reject(new ProjectionTimeoutError(position, this.reached, timeoutMs));
        }, timeoutMs),
      };
      this.waiters.add(waiter);
      void this.poll();
    });
  }

  /** Called by an in-process runner after a commit: every projection has now reached `position`. */
  notify(position: number): void {
    this.settle(position);
  }

  close(): void {
    this.closed = true;
    this.wakePoll?.();
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(new Error('ProjectionWaiter is closed'));
    }
    this.waiters.clear();
  }

  private settle(reached: number): void {
    this.reached = reached;
    for (const waiter of this.waiters) {
      if (waiter.position > reached) continue;
      clearTimeout(waiter.timer);
      this.waiters.delete(waiter);
      waiter.resolve();
    }
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      while (this.waiters.size && !this.closed) {
        try {
          this.settle(await this.lowestCheckpoint());
        } catch {
          // Postgres briefly unreachable: keep trying until the waiters' own timeouts answer them.
        }
        if (this.waiters.size) await this.sleep(this.options.pollIntervalMs);
      }
    } finally {
      this.polling = false;
    }
  }

  private async lowestCheckpoint(): Promise<number> {
    const names = this.registry.names();
    const rows: Array<{ count: string; lowest: string | null }> = await this.dataSource.query(
      'SELECT count(*) AS count, min(position) AS lowest FROM projection_checkpoints WHERE name = ANY($1)',
      [names],
    );
    // A projection without a row has applied nothing yet.
    return Number(rows[0].count) < names.length ? 0 : Number(rows[0].lowest ?? 0);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakePoll = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakePoll = done;
    });
  }
}
