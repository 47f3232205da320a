import type { DataSource } from 'typeorm';
import type { EventStore } from '#server/ledger/event-store.port';
import type { CheckpointStore } from './checkpoint-store';
import type { Projection } from './projection';
import { latestSnapshot, restoreSnapshot } from './projection-snapshot';

export interface RebuildReport {
  /** Events read from the ledger and offered to the projections. */
  eventsReplayed: number;
  /** Position the rebuilt projections reached (the head when the replay ended). */
  position: number;
  durationMs: number;
  projections: Array<{ name: string; eventsApplied: number; rows: Record<string, number> }>;
  /** The snapshot the rebuild started from (null: it replayed the whole ledger, archived segments included). */
  snapshot?: { id: number; position: number; restored: string[] } | null;
}

export interface RebuildDependencies {
  dataSource: DataSource;
  store: EventStore;
  checkpoints: CheckpointStore;
  projections: readonly Projection[];
  batchSize: number;
  /**
   * `snapshot` (default): start from the latest ledger snapshot when there is one (its tables restored, checkpoints at
   * its positions), replaying only what came after; `archive`: replay the whole ledger, archived segments included.
   */
  from?: 'snapshot' | 'archive';
}

export function quoteTable(table: string): string {
  return table
    .split('.')
    .map((part) => `"${part.replace(/"/g, '""')}"`)
    .join('.');
}

/**
 * Empties the chosen projections' tables, sets their checkpoints to 0 and replays the ledger from the start in
 * ordinary batches (read-model writes and checkpoints in one transaction each). The caller must hold the
 * projector leadership, so no live runner writes these tables meanwhile. Projections not chosen keep their
 * checkpoints and skip the events they already have.
 */
export async function rebuildProjections(deps: RebuildDependencies, only?: string[]): Promise<RebuildReport> {
  const started = Date.now();
  const unknown = (only ?? []).filter((name) => !deps.projections.some((projection) => projection.name === name));
  if (unknown.length) throw new Error(`Unknown projection(s): ${unknown.join(', ')}`);
  const selected = only ? deps.projections.filter((projection) => only.includes(projection.name)) : [...deps.projections];
  const names = deps.projections.map((projection) => projection.name);

  await deps.dataSource.transaction(async (manager) => {
    const tables = selected.flatMap((projection) => projection.tables);
    if (tables.length) await manager.query(`TRUNCATE TABLE ${tables.map(quoteTable).join(', ')} RESTART IDENTITY`);
    await manager.query(
      `INSERT INTO projection_checkpoints (name, position) SELECT unnest($1::text[]), 0
       ON CONFLICT (name) DO UPDATE SET position = 0, updated_at = now(), last_error = NULL, last_error_at = NULL`,
      [selected.map((projection) => projection.name)],
    );
  });

  const snapshot = deps.from === 'archive' ? null : await startFromSnapshot(deps, selected);

  const checkpoints = await deps.checkpoints.ensure(names);
  const applied = new Map(selected.map((projection) => [projection.name, 0]));
  let after = Math.min(...checkpoints.values());
  let eventsReplayed = 0;
  for (;;) {
    const events = await deps.store.readAll({ after, maxCount: deps.batchSize });
    if (events.length === 0) break;
    const result = await deps.checkpoints.applyBatch(deps.projections, checkpoints, events);
    for (const [name, count] of result.applied) if (applied.has(name)) applied.set(name, (applied.get(name) ?? 0) + count);
    eventsReplayed += events.length;
    after = result.position;
  }

  const projections = [];
  for (const projection of selected) {
    const rows: Record<string, number> = {};
    for (const table of projection.tables) {
      const [row] = await deps.dataSource.query(`SELECT count(*)::bigint AS count FROM ${quoteTable(table)}`);
      rows[table] = Number(row.count);
    }
    projections.push({ name: projection.name, eventsApplied: applied.get(projection.name) ?? 0, rows });
  }
  return { eventsReplayed, position: after, durationMs: Date.now() - started, projections, snapshot };
}

/** The `from snapshot` step: the latest snapshot's tables and checkpoints for the selected projections, one transaction. */
async function startFromSnapshot(
  deps: RebuildDependencies,
  selected: readonly Projection[],
): Promise<{ id: number; position: number; restored: string[] } | null> {
  const latest = await latestSnapshot(deps.dataSource);
  if (!latest) return null;
  const restored = await deps.dataSource.transaction((manager) => restoreSnapshot(manager, latest.id, selected));
  return { ...latest, restored: [...restored.keys()] };
}
