import type { EnvConfig } from '../../config/app-config';
import type { AppendDurability, AppendRequest, AppendResult, EventStore } from '../../ledger/event-store.port';

export interface GroupCommitOptions {
  /** Most appends sent in one statement. 1 turns group commit off (one appendToStream per call). */
  maxBatch: number;
  /**
   * Batches in flight at once. While they are, new appends queue up and go together in the next batch, so the
   * linger adapts to load: none when idle (a lone request pays no wait), one round trip under load.
   */
  maxInFlight: number;
  /** Extra fixed wait before a batch leaves, in ms (0: only the adaptive linger above). */
  lingerMs: number;
  /**
   * 'async' (the default for relay charges): the batch commits without waiting for the WAL flush (see
   * AppendDurability and docs/ledger.md); 'sync': it waits. Absent: 'sync'.
   */
  durability?: AppendDurability;
}

export const DEFAULT_GROUP_COMMIT: GroupCommitOptions = { maxBatch: 64, maxInFlight: 2, lingerMs: 0, durability: 'async' };

/**
 * The linger when the answers do not wait for the append (a charge journal makes them durable first): the ledger,
 * the projector and admission see each charge up to this much later, and in exchange a lightly loaded relay sends
 * one statement (one Postgres wake-up, one projector run, one admission script) per ~10 ms of charges instead of
 * one per charge. On the 2-core dev machine, at concurrency 1 that halved the added latency (+1.07 -> +0.51 ms p50)
 * and the added stream time to first byte (+2.05 -> +0.96 ms), because those wake-ups competed with the next
 * request for the CPU (docs/benchmark.md). Under load batches fill to SETTLEMENT_BATCH_MAX before it runs out.
 */
export const JOURNAL_LINGER_MS = 10;

export type GroupCommitConfig = Pick<
  EnvConfig,
  'SETTLEMENT_BATCH_MAX' | 'SETTLEMENT_BATCHES_IN_FLIGHT' | 'SETTLEMENT_LINGER_MS' | 'RELAY_CHARGE_SYNC_COMMIT'
>;

/**
 * Options from the configuration: SETTLEMENT_BATCH_MAX, SETTLEMENT_BATCHES_IN_FLIGHT, SETTLEMENT_LINGER_MS (unset:
 * `defaults.lingerMs`, the journal's linger, else 0), and RELAY_CHARGE_SYNC_COMMIT: off (default) appends relay
 * charges with `durability: 'async'`, on (strict) waits for each batch's WAL flush like every other append.
 */
export function groupCommitOptions(
  config: GroupCommitConfig,
  defaults: Pick<Partial<GroupCommitOptions>, 'lingerMs'> = {},
): GroupCommitOptions {
  return {
    maxBatch: config.SETTLEMENT_BATCH_MAX,
    maxInFlight: config.SETTLEMENT_BATCHES_IN_FLIGHT,
    lingerMs: config.SETTLEMENT_LINGER_MS ?? defaults.lingerMs ?? DEFAULT_GROUP_COMMIT.lingerMs,
    durability: config.RELAY_CHARGE_SYNC_COMMIT ? 'sync' : 'async',
  };
}

interface Pending {
  request: AppendRequest;
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

export interface GroupCommitStats {
  appends: number;
  batches: number;
  largestBatch: number;
}

/**
 * Group commit for the relay's charges: concurrent appends are collected and written with one
 * `EventStore.appendMany` (one statement, one transaction on Postgres), each caller resolved with its own
 * result only once the batch committed, so "answered" still means "durable".
 *
 * Exactly-once is the event ids': a request's id is derived from its request id, so a charge that reaches the
 * store twice (a retry, the fallback below) is a no-op the second time. If a whole batch fails (the store, not
 * one request), each of its appends is retried alone, so one poisoned request cannot fail its neighbours.
 */
export class GroupCommitAppender {
  private readonly queue: Pending[] = [];
  private inFlight = 0;
  private timer: NodeJS.Timeout | null = null;
  private scheduled = false;
  /** Appends a flush found no free slot for: they have waited their linger and leave as soon as a batch returns. */
  private overdue = false;
  private readonly counters: GroupCommitStats = { appends: 0, batches: 0, largestBatch: 0 };

  constructor(
    private readonly store: EventStore,
    private readonly options: GroupCommitOptions = DEFAULT_GROUP_COMMIT,
    /**
     * A callback of `submit` that threw (its own bug): told here, after the batch's other callers got theirs. By
     * default it surfaces as an unhandled rejection, as a throwing reaction to `append`'s promise would.
     */
    private readonly callbackFailed: (error: unknown) => void = (error) => void Promise.reject(error),
  ) {}

  append(request: AppendRequest): Promise<AppendResult> {
    if (this.options.maxBatch <= 1) {
      this.count(1);
      return this.store.appendToStream(request.streamId, request.events, this.appendOptions(request));
    }
    return new Promise<AppendResult>((resolve, reject) => this.submit(request, resolve, reject));
  }

  /**
   * `append` without a promise: exactly one of `resolve` and `reject` is called, once, when the batch returns. The
   * relay's shipping calls this once per charge; a promise and its reaction per charge, held for the linger and the
   * round trip, were garbage the api process paid for at every request (docs/benchmark.md, 2026-11-26).
   */
  submit(request: AppendRequest, resolve: (result: AppendResult) => void, reject: (error: unknown) => void): void {
    if (this.options.maxBatch <= 1) {
      this.count(1);
      this.store.appendToStream(request.streamId, request.events, this.appendOptions(request)).then(resolve, reject);
      return;
    }
    this.queue.push({ request, resolve, reject });
    this.schedule();
  }

  stats(): GroupCommitStats {
    return { ...this.counters };
  }

  settings(): GroupCommitOptions {
    return { ...this.options };
  }

  /** Sends what is queued now (tests and shutdown); resolves when the queue is empty and nothing is in flight. */
  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.inFlight > 0) {
      this.flush();
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private schedule(): void {
    if (this.queue.length >= this.options.maxBatch) {
      this.flush();
      return;
    }
    if (this.options.lingerMs > 0) {
      if (!this.timer) this.timer = setTimeout(() => this.flush(), this.options.lingerMs);
      return;
    }
    // Appends made in the same turn of the event loop leave together.
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
  }

  private flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    while (this.queue.length > 0 && this.inFlight < this.options.maxInFlight) {
      const batch = this.queue.splice(0, this.options.maxBatch);
      this.inFlight++;
      void this.send(batch).finally(() => this.returned());
    }
    this.overdue = this.queue.length > 0;
  }

  /**
   * A batch came back. Without a linger, whatever queued meanwhile leaves now (the adaptive linger). With one, only
   * what is due: a full batch, or appends a flush could not send for want of a slot; newer appends wait out their
   * own linger, so under load every batch carries a linger's worth of charges rather than the few that arrived
   * during the last round trip (on the dev machine at ~4,600 requests/s: ~39 charges a batch instead of ~11, and
   * Postgres time per charge in ledger_append_many 51-53 µs instead of 62-86; docs/benchmark.md).
   */
  private returned(): void {
    this.inFlight--;
    if (this.queue.length === 0) return;
    if (this.options.lingerMs === 0 || this.overdue || this.queue.length >= this.options.maxBatch) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), this.options.lingerMs);
  }

  private appendOptions(request: AppendRequest) {
    return { expectedRevision: request.expectedRevision ?? 'any', durability: this.options.durability ?? 'sync' };
  }

  private count(size: number): void {
    this.counters.appends += size;
    this.counters.batches++;
    if (size > this.counters.largestBatch) this.counters.largestBatch = size;
  }

  private async send(batch: Pending[]): Promise<void> {
    this.count(batch.length);
    if (batch.length === 1) {
      const [only] = batch;
      await this.store.appendToStream(only.request.streamId, only.request.events, this.appendOptions(only.request)).then(
        (result) => this.deliver(only, result, null),
        (error: unknown) => this.deliver(only, null, error),
      );
      return;
    }
    let outcomes;
    try {
      outcomes = await this.store.appendMany(
        batch.map((pending) => pending.request),
        { durability: this.options.durability ?? 'sync' },
      );
    } catch {
      // The statement failed as a whole (it may or may not have committed): each append again, alone. Ids make a
      // committed one a no-op; an append that fails alone fails only its own caller.
      await Promise.all(
        batch.map((pending) =>
          this.store.appendToStream(pending.request.streamId, pending.request.events, this.appendOptions(pending.request)).then(
            (result) => this.deliver(pending, result, null),
            (error: unknown) => this.deliver(pending, null, error),
          ),
        ),
      );
      return;
    }
    batch.forEach((pending, index) => {
      const outcome = outcomes[index];
      if (!outcome) this.deliver(pending, null, new Error('appendMany returned no outcome for this append'));
      else if (outcome.ok) this.deliver(pending, outcome.result, null);
      else this.deliver(pending, null, outcome.error);
    });
  }

  /** Calls the append's one callback; one that throws keeps no other caller of the batch from its own. */
  private deliver(pending: Pending, result: AppendResult | null, error: unknown): void {
    try {
      if (result !== null) pending.resolve(result);
      else pending.reject(error);
    } catch (failure) {
      this.callbackFailed(failure);
    }
  }
}
