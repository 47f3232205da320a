import { appendSequentially } from '../append-many';
import { validateAppend } from '../append-validation';
import {
  type AppendDurability,
  type AppendOutcome,
  type AppendRequest,
  type AppendResult,
  EventIdConflictError,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  type Subscription,
  WrongExpectedRevisionError,
} from '../event-store.port';
import { PullSubscription } from '../pull-subscription';

/**
 * The port in memory, with the same semantics as the Postgres adapter (it passes the same contract suite). For
 * pure specs of command handlers and deciders that need a store but no database; never selected at run time.
 */
export class InMemoryEventStore implements EventStore {
  /** appendMany runs its requests one after another (appendSequentially). */
  readonly atomicAppendMany: boolean = false;
  private readonly log: RecordedEvent[] = [];
  private readonly streams = new Map<string, RecordedEvent[]>();
  private readonly byId = new Map<string, RecordedEvent>();
  private readonly listeners = new Set<() => void>();
  private readonly subscriptions = new Set<Subscription>();

  constructor(private readonly clock: () => Date = () => new Date()) {}

  async appendToStream(
    streamId: string,
    events: NewEvent[],
    /** `durability` has no meaning in memory: every append is as durable as the process. */
    options: { expectedRevision?: ExpectedRevision; durability?: AppendDurability } = {},
  ): Promise<AppendResult> {
    const expected = options.expectedRevision ?? 'any';
    validateAppend(streamId, events, expected);
    const stream = this.streams.get(streamId) ?? [];
    const found = events.map((event) => this.byId.get(event.id.toLowerCase()));
    const stored = found.filter((event): event is RecordedEvent => event !== undefined);
    if (events.length && stored.length === events.length && stored.every((event) => event.streamId === streamId)) {
      const last = stored.reduce((a, b) => (b.position > a.position ? b : a));
      return { nextExpectedRevision: last.revision, position: last.position };
    }
    if (stored.length) {
      const reason = stored.some((event) => event.streamId !== streamId) ? 'id_in_other_stream' : 'partial_duplicate';
      throw new EventIdConflictError(
        streamId,
        stored.map((event) => event.id),
        reason,
      );
    }
    const current = stream.length ? stream.length - 1 : null;
    if (!matches(expected, current)) throw new WrongExpectedRevisionError(streamId, expected, current ?? 'no_stream');

    const createdAt = this.clock();
    for (const event of events) {
      const recorded: RecordedEvent = {
        id: event.id.toLowerCase(),
        streamId,
        revision: stream.length,
        position: this.log.length + 1,
        type: event.type,
        // Stored as JSON, like the real adapters, so a caller mutating its object cannot rewrite history.
        data: JSON.parse(JSON.stringify(event.data)),
        metadata: JSON.parse(JSON.stringify(event.metadata)),
        createdAt,
      };
      stream.push(recorded);
      this.log.push(recorded);
      this.byId.set(recorded.id, recorded);
    }
    this.streams.set(streamId, stream);
    if (events.length) for (const listener of this.listeners) listener();
    const last = stream[stream.length - 1];
    return { nextExpectedRevision: stream.length - 1, position: last?.position ?? 0 };
  }

  /** No multi-stream append here: the requests in order, each with its own outcome (docs/ledger.md). */
  async appendMany(requests: AppendRequest[], _options: { durability?: AppendDurability } = {}): Promise<AppendOutcome[]> {
    return appendSequentially(this, requests);
  }

  async readStream(streamId: string, options: { fromRevision?: number; maxCount?: number } = {}): Promise<RecordedEvent[]> {
    const from = options.fromRevision ?? 0;
    const stream = this.streams.get(streamId) ?? [];
    return stream.slice(from, options.maxCount === undefined ? undefined : from + options.maxCount);
  }

  async readAll(options: { after?: number; maxCount?: number } = {}): Promise<RecordedEvent[]> {
    // Positions are 1-based and gapless here, so the position is the index of the next event.
    const after = options.after ?? 0;
    return this.log.slice(after, options.maxCount === undefined ? undefined : after + options.maxCount);
  }

  subscribeToAll(
    options: { after?: number },
    handler: (event: RecordedEvent) => Promise<void>,
    onError: (error: unknown) => void = () => undefined,
  ): Subscription {
    const subscription = new PullSubscription(
      (after, maxCount) => this.readAll({ after, maxCount }),
      (wake) => {
        this.listeners.add(wake);
        return () => this.listeners.delete(wake);
      },
      handler,
      onError,
      { after: options.after ?? 0, batchSize: 100, pollIntervalMs: 1000 },
    );
    this.subscriptions.add(subscription);
    return {
      close: async () => {
        this.subscriptions.delete(subscription);
        await subscription.close();
      },
    };
  }

  async headPosition(): Promise<number> {
    return this.log.length;
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close()));
    this.subscriptions.clear();
  }
}

export function matches(expected: ExpectedRevision, current: number | null): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return current === null;
  if (expected === 'stream_exists') return current !== null;
  return current === expected;
}
