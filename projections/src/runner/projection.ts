import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import type { BulkFold } from './bulk-fold';

/**
 * A read model kept by folding ledger events into Postgres tables. Declare one as a provider with
 * `@ReadModelProjection()`; the runner finds it, gives it every event it `handles` exactly once, in global order,
 * inside the transaction that also moves its checkpoint.
 */
export interface Projection {
  /** Stable: it keys the checkpoint row. Renaming a projection rebuilds it from scratch. */
  readonly name: string;
  /** Tables this projection alone writes. Rebuild truncates them; no other code may write them. */
  readonly tables: readonly string[];
  /** Event types it applies; other events only move its checkpoint. */
  readonly handles: readonly string[];
  /**
   * Applies one event using `manager` (the batch's transaction): never another connection, never a side effect
   * outside Postgres, and no clock — take times from `event.createdAt` so a rebuild writes the same rows.
   */
  apply(event: RecordedEvent, manager: EntityManager): Promise<void>;
  /**
   * Optional: applies all the events of one batch this projection `handles` (those after its checkpoint, in global
   * position order) in one go, under the same rules as `apply`. When present the runner calls it instead of `apply`,
   * once per batch, so a projection can fold a run of hot events with a constant number of statements. The tables
   * must end exactly as `apply` one event after another leaves them: `apply` stays the yardstick (the runner also
   * replays it to find the event a failed batch stumbled on). Throw ProjectionEventError to name the failing event.
   */
  applyBatch?(events: readonly RecordedEvent[], manager: EntityManager): Promise<void>;
  /**
   * Optional, after the batch's transaction committed (live runs only): tell caches outside Postgres what moved,
   * e.g. the relay's admission bases. `position` is the checkpoint the committed tables are now exact at. Best
   * effort: a failure is logged, never retried into the tables.
   */
  afterCommit?(events: readonly RecordedEvent[], position: number): Promise<void>;
  /**
   * Optional: secondary indexes of its tables that none of its folds reads (plain ones: not unique, backing no
   * constraint). A rebuild drops them before replaying and creates them once at the end (deferred-indexes.ts),
   * instead of updating them row by row through the replay. Live runs never touch them.
   */
  readonly deferredIndexes?: readonly string[];
  /**
   * Optional: a new in-memory fold of this projection, for a rebuild that starts from empty tables (bulk-fold.ts,
   * bulk-load.ts): the rebuild folds the whole ledger in memory and writes each table with COPY, instead of a
   * transaction per page. Its rows must equal what `apply` one event after another leaves.
   */
  bulkFold?(): BulkFold;
}

export interface ProjectionRunnerOptions {
  /** Most events applied in one transaction. */
  batchSize: number;
  /** Events per transaction (and per page read) in a rebuild, where no one waits for a batch to commit. */
  rebuildBatchSize: number;
  /** Projections a rebuild applies at the same time, each its own transaction per page (projection-rebuild.ts). */
  rebuildLanes: number;
  /** How long a partial batch waits for more events before it is committed (live latency vs. transactions). */
  lingerMs: number;
  /** How often a follower retries for leadership. */
  leadershipPollMs: number;
  /** How often the leader checks its lock connection is alive. */
  heartbeatMs: number;
  /** Pause after a failed batch before the leader reloads checkpoints and retries; doubles per failure up to 30 s. */
  retryDelayMs: number;
}

export const DEFAULT_RUNNER_OPTIONS: ProjectionRunnerOptions = {
  batchSize: 500,
  rebuildBatchSize: 5000,
  rebuildLanes: 3,
  lingerMs: 10,
  leadershipPollMs: 1000,
  heartbeatMs: 5000,
  retryDelayMs: 1000,
};

/** Advisory lock ids, shared by every process of an installation (the ledger's append lock is 7311002). */
export const PROJECTOR_LEADER_LOCK = 7_311_003;

const messageOf = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause));

/** The events of a batch a projection failed on as a whole, when no single event could be blamed. */
export interface FailedBatch {
  count: number;
  firstPosition: number;
  lastPosition: number;
  /** `accepted`: `apply` one by one took every event (the batch path is at fault); `not_run`: the replay itself failed. */
  replay: 'accepted' | 'not_run';
}

/**
 * A projection could not apply an event: names the projection and the event (for a failed `applyBatch`, the event
 * `apply` fails on when replayed one by one; if none does, `batch` says which events the batch held and `event` is
 * its first).
 */
export class ProjectionApplyError extends Error {
  readonly code = 'projection_apply_failed';
  constructor(
    readonly projection: string,
    readonly event: Pick<RecordedEvent, 'position' | 'type' | 'streamId'>,
    readonly cause: unknown,
    readonly batch?: FailedBatch,
  ) {
    super(
      batch
        ? `Projection ${projection} failed on a batch of ${batch.count} events (positions ${batch.firstPosition}-${batch.lastPosition}), ` +
            `${batch.replay === 'accepted' ? 'which apply() one by one accepts' : 'not replayed one by one to find the event'}: ${messageOf(cause)}`
        : `Projection ${projection} failed on ${event.type} at position ${event.position} (${event.streamId}): ${messageOf(cause)}`,
    );
  }
}

/**
 * Thrown by an `applyBatch` to name the event it failed on (typically its data did not decode); the runner reports
 * it as a ProjectionApplyError for that event.
 */
export class ProjectionEventError extends Error {
  readonly code = 'projection_event_failed';
  constructor(
    readonly event: RecordedEvent,
    readonly cause: unknown,
  ) {
    super(`${event.type} at position ${event.position}: ${messageOf(cause)}`);
  }
}

/** Another writer moved a checkpoint under us (a second leader): the batch is rolled back, never applied twice. */
export class CheckpointMovedError extends Error {
  readonly code = 'projection_checkpoint_moved';
}

export class LeadershipUnavailableError extends Error {
  readonly code = 'projector_leadership_unavailable';
}

export class ProjectionTimeoutError extends Error {
  readonly code = 'projection_timeout';
  constructor(
    readonly position: number,
    readonly reached: number,
    timeoutMs: number,
  ) {
    super(`Read models did not reach position ${position} within ${timeoutMs} ms (at ${reached})`);
  }
}
