import type { DataSource, EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { CheckpointMovedError, type Projection, ProjectionApplyError, ProjectionEventError } from './projection';
import { queryPrepared } from './prepared-query';

export type Checkpoints = Map<string, number>;

export interface BatchResult {
  /** Position every given projection's checkpoint now has (or already had beyond). */
  position: number;
  /** Events each projection applied (handled types only). */
  applied: Map<string, number>;
}

const handledTypes = new WeakMap<Projection, Set<string>>();
function handles(projection: Projection, type: string): boolean {
  let types = handledTypes.get(projection);
  if (!types) handledTypes.set(projection, (types = new Set(projection.handles)));
  return types.has(type);
}

export interface BatchOptions {
  /**
   * Commit without waiting for the WAL flush (`SET LOCAL synchronous_commit = off`): a crash may lose the last
   * batches committed, never part of one (the checkpoints move in the same transaction, so the runner re-applies
   * exactly what was lost). For a rebuild, which nobody reads back while it runs; the live runner keeps the default.
   */
  asynchronousCommit?: boolean;
}

/**
 * An `applyBatch` failed without naming an event. Carried out of the (rolled back) transaction, where the runner
 * replays the events through `apply` to find the one to blame.
 */
class UnlocatedBatchFailure extends Error {
  constructor(
    readonly projection: Projection,
    readonly events: readonly RecordedEvent[],
    readonly cause: unknown,
  ) {
    super(`${projection.name}: applyBatch failed`);
  }
}

/** Reads and writes `projection_checkpoints` (migration 1732300000200). */
export class CheckpointStore {
  constructor(private readonly dataSource: DataSource) {}

  /** Creates missing rows at 0 (a new projection starts from the beginning) and returns every position. */
  async ensure(names: string[]): Promise<Checkpoints> {
    if (names.length) {
      await this.dataSource.query(
        `INSERT INTO projection_checkpoints (name, position) SELECT unnest($1::text[]), 0 ON CONFLICT (name) DO NOTHING`,
        [names],
      );
    }
    return this.load(names);
  }

  /** Positions of `names`; a projection without a row is at 0. */
  async load(names: string[]): Promise<Checkpoints> {
    const rows: Array<{ name: string; position: string }> = await this.dataSource.query(
      'SELECT name, position FROM projection_checkpoints WHERE name = ANY($1)',
      [names],
    );
    const found = new Map(rows.map((row) => [row.name, Number(row.position)]));
    return new Map(names.map((name) => [name, found.get(name) ?? 0]));
  }

  async recordError(names: string[], message: string): Promise<void> {
    await this.dataSource.query('UPDATE projection_checkpoints SET last_error = $2, last_error_at = now() WHERE name = ANY($1)', [
      names,
      message.slice(0, 2000),
    ]);
  }

  /**
   * Applies `events` to every projection still behind them and moves the checkpoints to the last event, all in
   * one transaction: after a crash either the whole batch is there with its checkpoints or none of it is.
   * `checkpoints` is what the caller believes is stored; the rows are locked and compared first, so a second
   * runner that somehow also thinks it leads gets CheckpointMovedError instead of applying events twice.
   * On success `checkpoints` is updated in place.
   *
   * Each projection in turn gets its share of the batch (the events it handles after its checkpoint, in position
   * order): through `applyBatch` in one call when it has one, else through `apply` event by event. Projections
   * write disjoint tables, so applying them one after another rather than event by event across all of them
   * leaves the same rows.
   */
  async applyBatch(
    projections: readonly Projection[],
    checkpoints: Checkpoints,
    events: RecordedEvent[],
    options: BatchOptions = {},
  ): Promise<BatchResult> {
    const last = events[events.length - 1]?.position;
    const applied = new Map(projections.map((projection) => [projection.name, 0]));
    if (last === undefined || projections.length === 0) return { position: last ?? 0, applied };
    const names = projections.map((projection) => projection.name);
    try {
      await this.dataSource.transaction(async (manager: EntityManager) => {
        if (options.asynchronousCommit) await manager.query('SET LOCAL synchronous_commit = off');
        const stored = await this.lockRows(manager, names);
        for (const name of names) {
          if (stored.get(name) !== checkpoints.get(name)) {
            throw new CheckpointMovedError(`Checkpoint of ${name} is ${stored.get(name)}, expected ${checkpoints.get(name)}`);
          }
        }
        for (const projection of projections) {
          const after = checkpoints.get(projection.name) ?? 0;
          const share = events.filter((event) => event.position > after && handles(projection, event.type));
          if (share.length === 0) continue;
          await applyShare(projection, share, manager);
          applied.set(projection.name, share.length);
        }
        await queryPrepared(
          manager,
          `UPDATE projection_checkpoints SET position = $2, updated_at = now(), last_error = NULL, last_error_at = NULL
            WHERE name = ANY($1) AND position < $2`,
          [names, last],
        );
      });
    } catch (error) {
      if (error instanceof UnlocatedBatchFailure) throw await this.locate(error);
      throw error;
    }
    for (const name of names) checkpoints.set(name, Math.max(checkpoints.get(name) ?? 0, last));
    return { position: last, applied };
  }

  /**
   * After a failed `applyBatch` that named no event (say a set-based statement Postgres refused) and its
   * transaction was rolled back: replays the same events through `apply`, one by one, in a transaction that is
   * always rolled back, and blames the first event that fails. The tables are as the failed batch found them (this
   * runner leads, nothing else writes them, and other projections' writes are in other tables), so the replay
   * meets the same rows. Costs nothing unless a batch failed.
   */
  private async locate(failure: UnlocatedBatchFailure): Promise<ProjectionApplyError> {
    const { projection, events, cause } = failure;
    const runner = this.dataSource.createQueryRunner();
    let replay: 'accepted' | 'not_run' = 'accepted';
    try {
      await runner.connect();
      await runner.startTransaction();
      for (const event of events) {
        try {
          await projection.apply(event, runner.manager);
        } catch (error) {
          return new ProjectionApplyError(projection.name, event, error);
        }
      }
    } catch {
      replay = 'not_run'; // no transaction to replay in (connection gone): report the batch as a whole
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
      await runner.release().catch(() => undefined);
    }
    return new ProjectionApplyError(projection.name, events[0], cause, {
      count: events.length,
      firstPosition: events[0].position,
      lastPosition: events[events.length - 1].position,
      replay,
    });
  }

  private async lockRows(manager: EntityManager, names: string[]): Promise<Checkpoints> {
    // ORDER BY keeps lock order stable, so two transactions can only wait, never deadlock, on these rows.
    const rows = await queryPrepared<{ name: string; position: string }>(
      manager,
      'SELECT name, position FROM projection_checkpoints WHERE name = ANY($1) ORDER BY name FOR UPDATE',
      [names],
    );
    return new Map(rows.map((row) => [row.name, Number(row.position)]));
  }
}

/** One projection's events of a batch, inside the batch's transaction; any failure names the projection. */
async function applyShare(projection: Projection, events: readonly RecordedEvent[], manager: EntityManager): Promise<void> {
  if (projection.applyBatch) {
    try {
      await projection.applyBatch(events, manager);
    } catch (error) {
      if (error instanceof ProjectionEventError) throw new ProjectionApplyError(projection.name, error.event, error.cause);
      throw new UnlocatedBatchFailure(projection, events, error);
    }
    return;
  }
  for (const event of events) {
    try {
      await projection.apply(event, manager);
    } catch (error) {
      throw new ProjectionApplyError(projection.name, event, error);
    }
  }
}
