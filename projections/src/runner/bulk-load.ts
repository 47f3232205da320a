import type { DataSource, QueryRunner } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import type { BulkBarrier, BulkFold, BulkRows } from './bulk-fold';
import { copyRows } from './copy-rows';
import { createDeferredIndexesOf } from './deferred-indexes';
import { type Projection, ProjectionApplyError, ProjectionEventError } from './projection';

/** A projection that can fold a rebuild in memory. */
export type BulkProjection = Projection & Required<Pick<Projection, 'bulkFold'>>;

export const canBulkLoad = (projection: Projection): projection is BulkProjection => typeof projection.bulkFold === 'function';

/**
 * Pages of rows written but not yet acknowledged that `feed` leaves in flight: past that it waits for the oldest
 * ones, down to this many, never for all of them, so Postgres always has rows to take while the next page is
 * folded (the fold runs ahead of COPY by this much).
 */
const WRITES_AHEAD = 2;

/**
 * One projection's rebuild through its BulkFold: ONE transaction on a connection of its own, from the checkpoint
 * (locked for the whole load, so no other runner can move it) to the last event fed. The fold's rows go out with
 * COPY while the next page is folded; a barrier waits for every row before it. Nothing is visible to others before
 * `finish` commits the rows and the checkpoint together, and `abort` (or a crash) leaves the tables and the
 * checkpoint as they were.
 */
export class BulkLoad {
  private readonly fold: BulkFold;
  private readonly handled: ReadonlySet<string>;
  private writes: Promise<void> = Promise.resolve();
  /** The writes queued and not finished, oldest first (they run one after another, so they finish in this order). */
  private readonly pending: Array<Promise<void>> = [];
  private failure: { error: unknown } | null = null;
  /** Whether the UNIQUE constraints the rebuild dropped from its tables are back (before the first barrier). */
  private constraintsBack = false;
  /** Events of the types the projection handles folded so far. */
  eventsApplied = 0;
  /** Rows written per table. */
  readonly rows = new Map<string, number>();

  private constructor(
    readonly projection: BulkProjection,
    private readonly runner: QueryRunner,
    private readonly after: number,
  ) {
    this.fold = projection.bulkFold();
    this.handled = new Set(projection.handles);
  }

  /**
   * Opens the load's transaction and locks the projection's checkpoint row, which must be at `after` (the
   * rebuild's reset set it). Commits are asynchronous, as every rebuild batch's: a crash loses the load whole.
   */
  static async start(dataSource: DataSource, projection: BulkProjection, after: number): Promise<BulkLoad> {
    const runner = dataSource.createQueryRunner();
    try {
      await runner.connect();
      await runner.startTransaction();
      await runner.query('SET LOCAL synchronous_commit = off');
      const rows: Array<{ position: string }> = await runner.query(
        'SELECT position FROM projection_checkpoints WHERE name = $1 FOR UPDATE',
        [projection.name],
      );
      const stored = rows.length ? Number(rows[0].position) : null;
      if (stored !== after) throw new Error(`Checkpoint of ${projection.name} is ${stored}, expected ${after} for a bulk rebuild`);
      return new BulkLoad(projection, runner, after);
    } catch (error) {
      await release(runner);
      throw error;
    }
  }

  /** Folds the events of one page (those the projection handles, after its checkpoint) and queues its rows. */
  async feed(events: readonly RecordedEvent[]): Promise<void> {
    this.throwIfFailed();
    // Whether the type is handled, looked up again only when it changes (the reader gives neighbours of one type
    // the same string, so this is mostly a comparison of references).
    let lastType: string | undefined;
    let handled = false;
    for (const event of events) {
      if (event.type !== lastType) {
        lastType = event.type;
        handled = this.handled.has(lastType);
      }
      if (!handled || event.position <= this.after) continue;
      let barrier: BulkBarrier | null | undefined;
      try {
        barrier = this.fold.barrierBefore?.(event);
      } catch (error) {
        throw new ProjectionApplyError(this.projection.name, event, error instanceof ProjectionEventError ? error.cause : error);
      }
      if (barrier) {
        this.write(this.fold.drain());
        await this.settle();
        await this.beforeBarrier();
        await barrier(this.runner.manager).catch((error: unknown) => {
          throw new ProjectionApplyError(this.projection.name, event, error);
        });
      }
      try {
        this.fold.add(event);
      } catch (error) {
        throw new ProjectionApplyError(this.projection.name, event, error instanceof ProjectionEventError ? error.cause : error);
      }
      this.eventsApplied++;
    }
    this.write(this.fold.drain());
    if (this.pending.length > WRITES_AHEAD) {
      // Waiting for the write that leaves WRITES_AHEAD behind it; those keep Postgres busy meanwhile.
      await this.pending[this.pending.length - 1 - WRITES_AHEAD];
      this.throwIfFailed();
    }
  }

  /** Writes what the fold still holds, moves the checkpoint to `position` and commits it all. */
  async finish(position: number): Promise<void> {
    try {
      await this.complete(position);
    } catch (error) {
      await release(this.runner);
      throw error;
    }
    await this.commit();
  }

  /**
   * Writes what the fold still holds and moves the checkpoint to `position`, without committing: a rebuild of
   * several loads completes them all before it commits any (then `commit`, or `abort`).
   */
  async complete(position: number): Promise<void> {
    this.write(this.fold.finish());
    await this.settle();
    // Every index and constraint the rebuild dropped from its tables, built from the rows now that they are all
    // there: in this transaction, so a constraint the rows break fails the load (every load rolls back) instead of
    // an index build after the commit, and the loads' builds run side by side, one backend each.
    await createDeferredIndexesOf(this.runner.manager, this.projection.tables);
    this.constraintsBack = true;
    const barrier = this.fold.finishBarrier?.();
    if (barrier) {
      await barrier(this.runner.manager).catch((error: unknown) => {
        throw new Error(`Projection ${this.projection.name}: its last rows failed: ${messageOf(error)}`);
      });
    }
    await this.analyze(); // the rows as they will be committed, the finish barrier's changes included
    await this.runner.query(
      `UPDATE projection_checkpoints SET position = $2, updated_at = now(), last_error = NULL, last_error_at = NULL
        WHERE name = $1`,
      [this.projection.name, position],
    );
  }

  /**
   * Planner statistics of the rows just loaded, committed with them. Without them every query on a table rebuilt
   * whole is planned blind until autovacuum analyzes it (a minute at best, never where autovacuum is off): the log
   * stat's last minute (`type = 2 AND created_at >= now − 60`) read a month of 858,000 rows by a parallel
   * sequential scan in 109 ms, where with statistics it reads its index in 0.08 ms. A partitioned table's
   * partitions are analyzed, not the parent as a whole, as autovacuum keeps them (it never analyzes a parent): the
   * whole would sample every row a second time, 0.45 s more for a million log rows.
   */
  private async analyze(): Promise<void> {
    const leaves: Array<{ name: string }> = await this.runner.query(
      `WITH named AS (SELECT to_regclass(quote_ident(name)) AS id FROM unnest($1::text[]) AS name)
       SELECT c.oid::regclass::text AS name FROM pg_class c JOIN named ON named.id = c.oid WHERE c.relkind = 'r'
       UNION ALL
       SELECT p.relid::regclass::text FROM named, pg_partition_tree(named.id) AS p WHERE p.isleaf`,
      [this.projection.tables],
    );
    if (leaves.length) await this.runner.query(`ANALYZE ${leaves.map((leaf) => leaf.name).join(', ')}`);
  }

  /** Commits what `complete` wrote and releases the connection. */
  async commit(): Promise<void> {
    try {
      await this.runner.commitTransaction();
    } finally {
      await release(this.runner);
    }
  }

  /** Rolls the load back: its tables and checkpoint stay as they were before `start`. */
  async abort(): Promise<void> {
    await this.writes.catch(() => undefined);
    await release(this.runner);
  }

  /**
   * Before the load's first barrier during the replay: the UNIQUE constraints the rebuild dropped from its tables are
   * added back, in its transaction, since a barrier's SQL may need them (an upsert's ON CONFLICT). Until then the
   * rows went in without them (unique by construction; adding a constraint checks that they are).
   */
  private async beforeBarrier(): Promise<void> {
    if (this.constraintsBack) return;
    this.constraintsBack = true;
    await createDeferredIndexesOf(this.runner.manager, this.projection.tables, { uniqueOnly: true });
  }

  private write(batches: readonly BulkRows[]): void {
    const due = batches.filter((batch) => batch.rows.length > 0);
    if (due.length === 0) return;
    const written = this.writes.then(async () => {
      let table = '';
      try {
        for (const batch of due) {
          if (this.failure) return;
          table = batch.table;
          const count = await copyRows(this.runner, batch);
          this.rows.set(table, (this.rows.get(table) ?? 0) + count);
        }
      } catch (error) {
        this.failure ??= { error: new Error(`Projection ${this.projection.name}: COPY into ${table} failed: ${messageOf(error)}`) };
      } finally {
        this.pending.shift();
      }
    });
    this.pending.push(written);
    this.writes = written;
  }

  /** Waits for every queued write; throws the first that failed. */
  private async settle(): Promise<void> {
    await this.writes;
    this.throwIfFailed();
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure.error;
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function release(runner: QueryRunner): Promise<void> {
  if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
  await runner.release().catch(() => undefined);
}
