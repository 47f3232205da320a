import { AsyncLocalStorage } from 'node:async_hooks';
import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  excludeSystemEvents,
  FORWARDS,
  jsonEvent,
  type ReadPosition,
  StreamNotFoundError,
} from '@eventstore/db-client';
import { appendSequentially } from '../append-many';
import { validateAppend } from '../append-validation';
import {
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
import {
  fromEsdbPosition,
  mapEsdbError,
  normalizeEsdbUrl,
  toEsdbExpectedRevision,
  toEsdbReadPosition,
  toRecordedEvent,
} from './esdb-mapping';

/** Events per $all read: small enough to stop near the head, large enough to skip system events quickly. */
const READ_PAGE = 256;

const insideHandler = new AsyncLocalStorage<Subscription>();

export interface EsdbEventStoreOptions {
  url: string;
  /** Per-call gRPC deadline, so an unreachable server fails a call instead of hanging it. */
  deadlineMs?: number;
  /** How far back a conflicting append is searched for its own event ids (the idempotent-retry check). */
  idempotencyWindow?: number;
}

/**
 * The production event store: EventStoreDB / KurrentDB through @eventstore/db-client (gRPC). Positions are
 * commit positions; the server orders $all by commit, so "after p" never skips an event.
 *
 * Idempotency: the server itself treats a batch whose ids are already stored at the expected revision as a
 * no-op. A retried batch whose expected revision has gone stale gets WrongExpectedVersion from the server; we
 * then look for the batch's ids in the last `idempotencyWindow` events of the stream and answer as the Postgres
 * adapter does (no-op when all are there, EventIdConflictError when some are). With expected revision `any` the
 * server's duplicate check is best effort (its id cache), as its documentation says; exact callers pass a revision.
 */
export class EsdbEventStore implements EventStore {
  /** appendMany runs its requests one after another (appendSequentially). */
  readonly atomicAppendMany: boolean = false;
  private readonly client: EventStoreDBClient;
  private readonly deadline: number;
  private readonly idempotencyWindow: number;
  private readonly subscriptions = new Set<Subscription>();

  constructor(private readonly options: EsdbEventStoreOptions) {
    this.client = EventStoreDBClient.connectionString(normalizeEsdbUrl(options.url));
    this.deadline = options.deadlineMs ?? 10_000;
    this.idempotencyWindow = options.idempotencyWindow ?? 1000;
  }

  /** Opens the client and makes one read, so a wrong URL or a down server fails at boot with a clear message. */
  static async connect(options: EsdbEventStoreOptions): Promise<EsdbEventStore> {
    const store = new EsdbEventStore(options);
    try {
      await store.headPosition();
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  async appendToStream(streamId: string, events: NewEvent[], options: { expectedRevision?: ExpectedRevision } = {}): Promise<AppendResult> {
    const expected = options.expectedRevision ?? 'any';
    validateAppend(streamId, events, expected);
    try {
      const result = await this.client.appendToStream(
        streamId,
        events.map((event) => jsonEvent({ id: event.id, type: event.type, data: event.data, metadata: { ...event.metadata } })),
        { expectedRevision: toEsdbExpectedRevision(expected), deadline: this.deadline },
      );
      const revision = Number(result.nextExpectedRevision);
      const position = result.position ? fromEsdbPosition(result.position) : await this.positionOf(streamId, revision);
      return { nextExpectedRevision: revision, position };
    } catch (error) {
      const mapped = mapEsdbError(error, { streamId, expected, url: this.options.url });
      if (mapped instanceof WrongExpectedRevisionError && events.length) {
        const duplicate = await this.storedBatch(streamId, events);
        if (duplicate) return duplicate;
      }
      throw mapped;
    }
  }

  /** No multi-stream append here: the requests in order, each with its own outcome (docs/ledger.md). */
  async appendMany(requests: AppendRequest[]): Promise<AppendOutcome[]> {
    return appendSequentially(this, requests);
  }

  async readStream(streamId: string, options: { fromRevision?: number; maxCount?: number } = {}): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(streamId, {
        direction: FORWARDS,
        fromRevision: BigInt(options.fromRevision ?? 0),
        ...(options.maxCount === undefined ? {} : { maxCount: options.maxCount }),
        deadline: this.deadline,
      });
      for await (const resolved of read) {
        const event = toRecordedEvent(resolved);
        if (event) events.push(event);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw mapEsdbError(error, { streamId, url: this.options.url });
    }
    return events;
  }

  async readAll(options: { after?: number; maxCount?: number } = {}): Promise<RecordedEvent[]> {
    const limit = options.maxCount ?? Number.POSITIVE_INFINITY;
    const events: RecordedEvent[] = [];
    let after = options.after ?? 0;
    try {
      // No server-side filter on readAll in this client: read pages and skip system events until `limit` are found.
      while (events.length < limit) {
        const page = await this.readAllPage(FORWARDS, toEsdbReadPosition(after));
        for (const event of page.events) if (event.position > after && events.length < limit) events.push(event);
        if (page.size < READ_PAGE || page.last === null) break;
        after = page.last;
      }
    } catch (error) {
      throw mapEsdbError(error, { url: this.options.url });
    }
    return events;
  }

  subscribeToAll(
    options: { after?: number },
    handler: (event: RecordedEvent) => Promise<void>,
    onError: (error: unknown) => void = () => undefined,
  ): Subscription {
    const after = options.after ?? 0;
    const stream = this.client.subscribeToAll({ fromPosition: toEsdbReadPosition(after), filter: excludeSystemEvents() });
    let closed = false;
    let unsubscribed: Promise<void> | undefined;
    // Cancels the gRPC call once, whoever ends the subscription: a call left open (after a handler error, say) keeps
    // its unread messages and the client's dispose() waits for it forever.
    const unsubscribe = (): Promise<void> => (unsubscribed ??= stream.unsubscribe().catch(() => undefined));
    // Assigned below, before the first event can arrive; the handler scope needs the variable.
    // eslint-disable-next-line prefer-const -- read by the handler above its one assignment, which needs the object it returns
    let subscription!: Subscription;
    const fail = (error: unknown): void => {
      if (closed) return;
      closed = true;
      onError(error);
      void unsubscribe();
    };
    // The loop never breaks out early: leaving a for-await destroys the client's stream while the gRPC call under it
    // still holds unread messages, and then neither the cancel nor the client's dispose() ever completes. Once
    // closed, it reads on (and drops) until the cancelled call ends.
    const done = (async () => {
      try {
        for await (const resolved of stream) {
          if (closed) continue;
          const event = toRecordedEvent(resolved);
          if (!event || event.position <= after) continue;
          await insideHandler.run(subscription, () => handler(event)).catch(fail);
        }
      } catch (error) {
        fail(mapEsdbError(error, { url: this.options.url }));
      } finally {
        closed = true;
        await unsubscribe();
      }
    })();
    subscription = {
      close: async (): Promise<void> => {
        this.subscriptions.delete(subscription);
        closed = true;
        await unsubscribe();
        // Closing from inside the handler must not wait for that same handler to return.
        if (insideHandler.getStore() !== subscription) await done;
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  async headPosition(): Promise<number> {
    try {
      let from: ReadPosition = END;
      for (;;) {
        const page = await this.readAllPage(BACKWARDS, from);
        if (page.events.length) return page.events[0].position;
        if (page.size < READ_PAGE || page.last === null) return 0;
        from = { commit: BigInt(page.last), prepare: BigInt(page.last) };
      }
    } catch (error) {
      throw mapEsdbError(error, { url: this.options.url });
    }
  }

  /**
   * One bounded page of $all, read to its end. A read left before its end keeps its gRPC call open with unread
   * messages, and the client's dispose() then waits for it forever; so pages, never an early break.
   */
  private async readAllPage(
    direction: typeof FORWARDS | typeof BACKWARDS,
    fromPosition: ReadPosition,
  ): Promise<{ events: RecordedEvent[]; size: number; last: number | null }> {
    const events: RecordedEvent[] = [];
    let size = 0;
    let last: number | null = null;
    const read = this.client.readAll({ direction, fromPosition, maxCount: READ_PAGE, deadline: this.deadline });
    for await (const resolved of read) {
      size++;
      const position = resolved.event?.position?.commit ?? resolved.commitPosition;
      if (position !== undefined) last = Number(position);
      const event = toRecordedEvent(resolved);
      if (event) events.push(event);
    }
    return { events, size, last };
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((subscription) => subscription.close().catch(() => undefined)));
    await this.client.dispose().catch(() => undefined);
  }

  private async positionOf(streamId: string, revision: number): Promise<number> {
    const [event] = await this.readStream(streamId, { fromRevision: revision, maxCount: 1 });
    if (!event) throw new Error(`EventStoreDB reported revision ${revision} of ${streamId} but it cannot be read`);
    return event.position;
  }

  /** The idempotent-retry check of a conflicting append; null when the batch is genuinely new. */
  private async storedBatch(streamId: string, events: NewEvent[]): Promise<AppendResult | null> {
    const wanted = new Set(events.map((event) => event.id.toLowerCase()));
    const found: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(streamId, {
        direction: BACKWARDS,
        fromRevision: END,
        maxCount: this.idempotencyWindow,
        deadline: this.deadline,
      });
      for await (const resolved of read) {
        const event = toRecordedEvent(resolved);
        // Read to the end of the (bounded) window: leaving early would keep the gRPC call open (see readAllPage).
        if (event && wanted.has(event.id.toLowerCase()) && found.length < wanted.size) found.push(event);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return null;
      throw mapEsdbError(error, { streamId, url: this.options.url });
    }
    if (found.length === 0) return null;
    if (found.length < wanted.size) {
      throw new EventIdConflictError(
        streamId,
        found.map((event) => event.id),
        'partial_duplicate',
      );
    }
    const last = found.reduce((a, b) => (b.revision > a.revision ? b : a));
    return { nextExpectedRevision: last.revision, position: last.position };
  }
}
