import type { RecordedEvent } from '#server/ledger/event-store.port';

export interface EventBatcherOptions {
  maxSize: number;
  lingerMs: number;
}

/**
 * Turns a one-event-at-a-time subscription into batches: a batch is flushed when it is full (the subscription
 * waits for it: back-pressure) or `lingerMs` after its first event, so a live event waits at most that long even
 * under a steady trickle. Flushes run one after another, in order.
 * After a failed flush it takes nothing more; the owner restarts from the stored checkpoints.
 */
export class EventBatcher {
  private buffer: RecordedEvent[] = [];
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | null = null;

  constructor(
    private readonly flushBatch: (events: RecordedEvent[]) => Promise<void>,
    private readonly options: EventBatcherOptions,
    private readonly onFailure: (error: unknown) => void,
  ) {}

  get pending(): number {
    return this.buffer.length;
  }

  async push(event: RecordedEvent): Promise<void> {
    if (this.failure) throw this.failure.error;
    this.buffer.push(event);
    if (this.buffer.length >= this.options.maxSize) {
      await this.flush();
      return;
    }
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush().catch(() => undefined); // reported through onFailure
    }, this.options.lingerMs);
  }

  /** Flushes what is buffered (after earlier flushes); resolves when it is committed, rejects if it failed. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.buffer;
    this.buffer = [];
    const next = this.chain.then(async () => {
      if (this.failure) throw this.failure.error;
      if (batch.length === 0) return;
      try {
        await this.flushBatch(batch);
      } catch (error) {
        this.failure = { error };
        this.onFailure(error);
        throw error;
      }
    });
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Drops what is buffered (leadership lost, shutting down after a failure). */
  discard(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.buffer = [];
  }
}
