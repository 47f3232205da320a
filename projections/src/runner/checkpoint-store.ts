import type { DataSource, EntityManager } from 'typeorm';
import type { RecordedEvent } from '../../../server/src/ledger/event-store.port';
import { CheckpointMovedError, type Projection, ProjectionApplyError } from './projection';

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
    await this.dataSource.query(
      'UPDATE projection_checkpoints SET last_error = $2, last_error_at = now() WHERE name = ANY($1)',
      [names, message.slice(0, 2000)],
    );
  }

  /**
   * Applies `events` to every projection still behind them and moves the checkpoints to the last event, all in
   * one transaction: after a crash either the whole batch is there with its checkpoints or none of it is.
   * `checkpoints` is what the caller believes is stored; the rows are locked and compared first, so a second
   * runner that somehow also thinks it leads gets CheckpointMovedError instead of applying events twice.
   * On success `checkpoints` is updated in place.
   */
  async applyBatch(projections: readonly Projection[], checkpoints: Checkpoints, events: RecordedEvent[]): Promise<BatchResult> {
    const last = events[events.length - 1]?.position;
    const applied = new Map(projections.map((projection) => [projection.name, 0]));
    if (last === undefined || projections.length === 0) return { position: last ?? 0, applied };
    const names = projections.map((projection) => projection.name);
    await this.dataSource.transaction(async (manager: EntityManager) => {
      const stored = await this.lockRows(manager, names);
      for (const name of names) {
        if (stored.get(name) !== checkpoints.get(name)) {
          throw new CheckpointMovedError(`Checkpoint of ${name} is ${stored.get(name)}, expected ${checkpoints.get(name)}`);
        }
      }
      for (const event of events) {
        for (const projection of projections) {
          if (event.position <= (checkpoints.get(projection.name) ?? 0) || !handles(projection, event.type)) continue;
          try {
            await projection.apply(event, manager);
          } catch (error) {
            throw new ProjectionApplyError(projection.name, event, error);
          }
          applied.set(projection.name, (applied.get(projection.name) ?? 0) + 1);
        }
      }
      await manager.query(
        `UPDATE projection_checkpoints SET position = $2, updated_at = now(), last_error = NULL, last_error_at = NULL
          WHERE name = ANY($1) AND position < $2`,
        [names, last],
      );
    });
    for (const name of names) checkpoints.set(name, Math.max(checkpoints.get(name) ?? 0, last));
    return { position: last, applied };
  }

  private async lockRows(manager: EntityManager, names: string[]): Promise<Checkpoints> {
    // ORDER BY keeps lock order stable, so two transactions can only wait, never deadlock, on these rows.
    const rows: Array<{ name: string; position: string }> = await manager.query(
      'SELECT name, position FROM projection_checkpoints WHERE name = ANY($1) ORDER BY name FOR UPDATE',
      [names],
    );
    return new Map(rows.map((row) => [row.name, Number(row.position)]));
  }
}
