import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';

/**
 * Rows for one table, written by a rebuild with `COPY … FROM STDIN` (copy-rows.ts), one array of values per row in
 * `columns` order. Values: string, number, bigint, boolean, Date (written as ISO 8601), null/undefined (NULL), or a
 * plain object or array (written as its JSON text, for json/jsonb columns).
 */
export interface BulkRows {
  table: string;
  columns: readonly string[];
  rows: unknown[][];
}

/** SQL a fold cannot do in memory (a log purge, a partition to create), run in the bulk load's transaction. */
export type BulkBarrier = (manager: EntityManager) => Promise<void>;

/**
 * A projection's fold in memory, for a rebuild that starts from empty tables (bulk-load.ts). Instead of a
 * transaction per page that reads and writes the tables event by event, the rebuild hands the fold every event the
 * projection `handles`, in ledger order, and writes the rows it gives back with COPY, once. The tables must end
 * exactly as `apply` one event after another leaves them from empty (bulk-equivalence checks each fold against
 * `apply` on mixed ledgers): `apply` stays the yardstick.
 *
 * Rules: `add` does no I/O and keeps no clock (times come from `event.createdAt`); the fold's state is whatever it
 * needs, kept small where it can be (a map per key of the aggregate, not the events).
 */
export interface BulkFold {
  /**
   * Called before `add(event)`: SQL this event needs before it is folded, or null (nearly always). With a barrier,
   * the rebuild first writes every row `drain` gives back (so the tables hold everything before this event), runs
   * the barrier in the bulk load's transaction, then calls `add`.
   */
  barrierBefore?(event: RecordedEvent): BulkBarrier | null;
  /** Folds one event. Throws ProjectionEventError (projection.ts) to name an event it cannot decode. */
  add(event: RecordedEvent): void;
  /** Rows that are final already (those of append-only tables): taken after every page and written at once. */
  drain(): BulkRows[];
  /** Every row still held (the folded aggregates): called once, after the last event. */
  finish(): BulkRows[];
  /**
   * Called once, after `finish`: SQL the fold's last rows need once every row is written (an upsert into them), or
   * null. Runs in the bulk load's transaction, before the checkpoint moves.
   */
  finishBarrier?(): BulkBarrier | null;
}
