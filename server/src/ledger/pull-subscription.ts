import { AsyncLocalStorage } from 'node:async_hooks';
import type { RecordedEvent, Subscription } from './event-store.port';

/** Something that says "new events may be there" (pg NOTIFY, an in-process emitter). Returns an unsubscribe. */
export type WakeSource = (wake: () => void) => () => void;

export interface PullSubscriptionOptions {
  after: number;
  /** Page size of each read. */
  batchSize: number;
  /** Fallback poll when no wake-up comes (a lost NOTIFY, a dropped LISTEN connection). */
  pollIntervalMs: number;
}

const insideHandler = new AsyncLocalStorage<PullSubscription>();

/**
 * A catch-up subscription built on `readAll`: reads pages after the last delivered position, hands events to the
 * handler one by one, and when it reaches the head sleeps until woken or the poll interval passes. Because it only
 * ever asks for "positions after the last one I handled", it is exactly as gap-safe as the adapter's readAll.
 */
export class PullSubscription implements Subscription {
  private closed = false;
  private position: number;
  private signalled = false;
  private wakeSleeper: (() => void) | null = null;
  private readonly done: Promise<void>;

  constructor(
    private readonly read: (after: number, maxCount: number) => Promise<RecordedEvent[]>,
    private readonly wakeSource: WakeSource,
    private readonly handler: (event: RecordedEvent) => Promise<void>,
    private readonly onError: (error: unknown) => void,
    private readonly options: PullSubscriptionOptions,
  ) {
    this.position = options.after;
    this.done = this.run();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake();
    // Closing from inside the handler must not wait for that same handler to return.
    if (insideHandler.getStore() === this) return;
    await this.done;
  }

  private wake(): void {
    this.signalled = true;
    this.wakeSleeper?.();
  }

  private async run(): Promise<void> {
    const unsubscribe = this.wakeSource(() => this.wake());
    try {
      while (!this.closed) {
        this.signalled = false;
        const events = await this.read(this.position, this.options.batchSize);
        for (const event of events) {
          if (this.closed) return;
          await insideHandler.run(this, () => this.handler(event));
          this.position = event.position;
        }
        if (events.length < this.options.batchSize && !this.signalled && !this.closed) await this.sleep();
      }
    } catch (error) {
      this.closed = true;
      this.onError(error);
    } finally {
      unsubscribe();
    }
  }

  private sleep(): Promise<void> {
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.wakeSleeper = null;
        resolve();
      };
      const timer = setTimeout(finish, this.options.pollIntervalMs);
      this.wakeSleeper = finish;
    });
  }
}
