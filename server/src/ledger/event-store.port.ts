/**
 * The event store port. Two adapters implement it: Postgres (default; an append-only `events` table) and
 * EventStoreDB via @eventstore/db-client (EVENTSTORE_URL=esdb://…). Both pass the contract suite in
 * server/src/ledger/event-store.contract.ts (docs/ledger.md explains the guarantees).
 */

export type Actor = { type: 'user'; userId: number; role: number } | { type: 'system' };

export interface EventMetadata {
  /** The request or admin action this event belongs to (X-Oneapi-Request-Id for HTTP). */
  correlationId: string;
  /** The event or command that caused this one; null for a direct command. */
  causationId: string | null;
  actor: Actor;
  clientIp: string | null;
  /** Stable machine-readable reason, e.g. `new_user_bonus`, `admin_edit`, `relay_consume`. */
  reasonCode: string;
  schemaVersion: number;
}

export interface NewEvent<Type extends string = string, Data = Record<string, unknown>> {
  /** UUID. Derive it from what caused the event (request id, trade number…) so a retried append is a no-op. */
  id: string;
  type: Type;
  data: Data;
  metadata: EventMetadata;
}

export interface RecordedEvent<Type extends string = string, Data = Record<string, unknown>> {
  id: string;
  streamId: string;
  /** 0-based position of the event inside its stream. */
  revision: number;
  /** Position in the global log ($all); strictly increasing in commit order. */
  position: number;
  type: Type;
  data: Data;
  metadata: EventMetadata;
  createdAt: Date;
}

/** `no_stream`: the stream must not exist; `stream_exists`: it must; a number: the revision of its last event. */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | number;

export interface AppendResult {
  /**
   * Revision of the stream's last event after the append (-1 for an empty append to a missing stream). On an
   * idempotent no-op: the revision of the duplicate batch's last event, as EventStoreDB reports it.
   */
  nextExpectedRevision: number;
  /** Global position of the last event written (or of the existing duplicate on an idempotent no-op). */
  position: number;
}

export interface Subscription {
  close(): Promise<void>;
}

/** One append of an `appendMany` batch: exactly what one `appendToStream` call would take. */
export interface AppendRequest {
  streamId: string;
  events: NewEvent[];
  expectedRevision?: ExpectedRevision;
}

/**
 * How durable an append is when its promise resolves.
 * - `'sync'` (the default, every console command): the commit is on disk (Postgres waits for the WAL flush).
 * - `'async'`: committed and visible to every reader, but the WAL flush may follow up to ~3 × wal_writer_delay
 *   (200 ms) later (Postgres `synchronous_commit = off` for that transaction only). A crash of the calling process
 *   loses nothing; only a crash of the database server can lose the last such commits, never reorder or duplicate
 *   them. Used ONLY by the relay's charges (RELAY_CHARGE_SYNC_COMMIT, docs/ledger.md). Adapters that have no such
 *   knob (EventStoreDB, in memory) treat it as `'sync'`.
 */
export type AppendDurability = 'sync' | 'async';

export interface AppendOptions {
  expectedRevision?: ExpectedRevision;
  durability?: AppendDurability;
}

/** What one append of an `appendMany` batch came to: its result, or the error `appendToStream` would throw. */
export type AppendOutcome = { ok: true; result: AppendResult } | { ok: false; error: Error };

export interface EventStore {
  /**
   * Appends atomically. Fails with WrongExpectedRevisionError when the stream is not at `expectedRevision`.
   * If every event id of the batch is already stored in that stream, it is a no-op that succeeds.
   */
  appendToStream(streamId: string, events: NewEvent[], options?: AppendOptions): Promise<AppendResult>;
  /**
   * Several independent appends (to any streams) in one go, for group commit. Each request has exactly the
   * semantics of its own `appendToStream` call, applied in array order (so a later request sees an earlier
   * one's events); a request that would throw writes nothing and gets `{ ok: false, error }` without affecting
   * the others. Postgres: one statement, one transaction, one notification. The promise rejects only when the
   * store itself failed (nothing may be assumed written, or not: retry with the same event ids).
   */
  appendMany(requests: AppendRequest[], options?: { durability?: AppendDurability }): Promise<AppendOutcome[]>;
  /**
   * True when `appendMany` is one transaction (Postgres: a crash commits all of it or none of it); false when it runs
   * the requests one after another (EventStoreDB, in memory), so a failure or a crash can fall between two of them.
   */
  readonly atomicAppendMany: boolean;
  /** Events of one stream in revision order; empty array when the stream does not exist. */
  readStream(streamId: string, options?: { fromRevision?: number; maxCount?: number }): Promise<RecordedEvent[]>;
  /** Events of every stream with position strictly greater than `after` (default: from the start), in order. */
  readAll(options?: { after?: number; maxCount?: number }): Promise<RecordedEvent[]>;
  /**
   * Optional: readAll for a replay of the whole ledger in big pages (a rebuild): the same events, archived ones
   * included, read with less work per event. The Postgres store has it (COPY in binary); without it a replay reads
   * through readAll.
   */
  readAllInBulk?(options: { after?: number; maxCount: number }): Promise<RecordedEvent[]>;
  /**
   * Catches up from `after`, then delivers live events, one at a time, in order, awaiting the handler.
   * A handler error stops the subscription and is reported to `onError`.
   */
  subscribeToAll(
    options: { after?: number },
    handler: (event: RecordedEvent) => Promise<void>,
    onError?: (error: unknown) => void,
  ): Subscription;
  /** Position of the last event in the global log (0 when empty). */
  headPosition(): Promise<number>;
  close(): Promise<void>;
}

export const EVENT_STORE = Symbol('EVENT_STORE');

export class WrongExpectedRevisionError extends Error {
  readonly code = 'wrong_expected_revision';
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super(`Stream ${streamId}: expected revision ${String(expected)}, actual ${String(actual)}`);
  }
}

/**
 * The batch reuses an event id in a way that cannot be an idempotent retry: some ids of the batch are stored
 * and some are not, an id is stored in another stream, or an id appears twice in the batch. Nothing was written.
 */
export class EventIdConflictError extends Error {
  readonly code = 'event_id_conflict';
  constructor(
    readonly streamId: string,
    readonly eventIds: string[],
    readonly reason: 'partial_duplicate' | 'id_in_other_stream' | 'duplicate_in_batch',
  ) {
    super(`Stream ${streamId}: event id conflict (${reason}) for ${eventIds.join(', ')}`);
  }
}

/** A malformed append (an id that is not a UUID, an empty type); a programming error, never retried. */
export class InvalidEventError extends Error {
  readonly code = 'invalid_event';
}

/** The event store cannot be reached; the operation may be retried later. */
export class EventStoreUnavailableError extends Error {
  readonly code = 'event_store_unavailable';
  constructor(
    message: string,
    readonly cause?: unknown,
  ) {
    super(message);
  }
}
