import type { DataSource } from 'typeorm';
import type { EventStore } from '#server/ledger/event-store.port';
import type { CheckpointStore } from './checkpoint-store';
import { dropDeferredIndexes, restoreDeferredIndexes } from './deferred-indexes';
import type { Projection } from './projection';
import { latestSnapshot, restoreSnapshot } from './projection-snapshot';
import type { PageReader } from './read-ahead';
import { quoteTable } from './quote-table';
import { bulkProjectionsOf, poolSizeOf, type Replay, replayLedger } from './rebuild-replay';

export interface RebuildReport {
  /** Events read from the ledger and offered to the projections. */
  eventsReplayed: number;
  /** Position the rebuilt projections reached (the head when the replay ended). */
  position: number;
  durationMs: number;
  projections: Array<{ name: string; eventsApplied: number; rows: Record<string, number>; bulk: boolean }>;
  /** The snapshot the rebuild started from (null: it replayed the whole ledger, archived segments included). */
  snapshot?: { id: number; position: number; restored: string[] } | null;
}

export interface RebuildDependencies {
  dataSource: DataSource;
  store: EventStore;
  checkpoints: CheckpointStore;
  projections: readonly Projection[];
  /** Events per transaction (and per page read) while replaying. */
  batchSize: number;
  /**
   * `snapshot` (default): start from the latest ledger snapshot when there is one (its tables restored, checkpoints at
   * its positions), replaying only what came after; `archive`: replay the whole ledger, archived segments included.
   */
  from?: 'snapshot' | 'archive';
  /** Projections of the classic path applying a page at the same time, each in its own transaction (default 1). */
  lanes?: number;
  /** Reads a page of the ledger for the replay (default: the store's readAll). */
  readPage?: PageReader;
}

/** What a rebuild tells its caller while it replays (the CLI's progress bar). */
export interface RebuildProgressReport {
  /** Events replayed so far. */
  done: number;
  /** The ledger's head position when the rebuild started: what there is to replay (0: an empty ledger). */
  total: number;
  /** Milliseconds since the replay started. */
  elapsedMs: number;
}

export interface RebuildHooks {
  /** Called after every committed batch (and once before the first). Must not throw. */
  onProgress?: (progress: RebuildProgressReport) => void;
}

export { quoteTable } from './quote-table';

/**
 * Empties the chosen projections' tables, sets their checkpoints to 0 (then restores the latest snapshot, unless
 * `from: 'archive'`) and replays the ledger, fast (rebuild-replay.ts):
 *
 * - projections at checkpoint 0 with a `bulkFold` go through a BulkLoad each (bulk-load.ts: folded in memory, COPY,
 *   one transaction committed at the end), every plain index of their tables dropped for the replay;
 * - the others page by page, each page one ordinary batch (read-model writes and checkpoints in one transaction, as
 *   live) committed asynchronously (nobody reads the tables back meanwhile; a crash loses at most the last batches,
 *   and the checkpoints with them, so whatever resumes re-applies exactly those);
 * - the next page is read while the current one is folded or applied (readAhead), in pages of `batchSize` events,
 *   through `readPage` (the store's replay reader) when given;
 * - the projections' `deferredIndexes` are dropped for the replay and created once at the end (deferred-indexes.ts).
 *
 * The result is the same rows as live: each bulk fold equals `apply` one event after another (bulk-equivalence),
 * and the classic path runs the same `applyBatch`es in ledger order, whatever the batch size. The caller must hold
 * the projector leadership, so no live runner writes these tables meanwhile. Projections not chosen keep their
 * checkpoints and skip the events they already have.
 */
export async function rebuildProjections(deps: RebuildDependencies, only?: string[], hooks: RebuildHooks = {}): Promise<RebuildReport> {
  const started = Date.now();
  const unknown = (only ?? []).filter((name) => !deps.projections.some((projection) => projection.name === name));
  if (unknown.length) throw new Error(`Unknown projection(s): ${unknown.join(', ')}`);
  const selected = only ? deps.projections.filter((projection) => only.includes(projection.name)) : [...deps.projections];

  const total = await deps.store.headPosition();
  await restoreDeferredIndexes(deps.dataSource); // left by a rebuild that died: the replay below starts from a whole schema
  await resetProjections(deps.dataSource, selected);
  await dropDeferredIndexes(deps.dataSource, selected);
  let replay: Replay;
  let snapshot: Awaited<ReturnType<typeof startFromSnapshot>> = null;
  try {
    snapshot = deps.from === 'archive' ? null : await startFromSnapshot(deps, selected);
    const lanes = Math.max(1, deps.lanes ?? 1);
    const checkpoints = await deps.checkpoints.ensure(deps.projections.map((projection) => projection.name));
    const bulk = bulkProjectionsOf(selected, checkpoints, poolSizeOf(deps.dataSource));
    // A bulk load reads none of its tables' indexes: every plain one is built once at the end (statement_lines_user
    // kept up through 196,000 rows: 7.3 s against 3.5 s without it; built afterwards: 0.4 s), and so is every UNIQUE
    // constraint but the primary key: the load builds them all in its own transaction (bulk-load.ts).
    await dropDeferredIndexes(deps.dataSource, [], { bulkLoaded: bulk });
    const started = Date.now();
    hooks.onProgress?.({ done: 0, total, elapsedMs: 0 });
    replay = await replayLedger(
      {
        dataSource: deps.dataSource,
        checkpoints: deps.checkpoints,
        projections: deps.projections,
        read: deps.readPage ?? ((after, maxCount) => deps.store.readAll({ after, maxCount })),
        pageSize: deps.batchSize,
        lanes,
      },
      bulk,
      total,
      (done) => hooks.onProgress?.({ done, total, elapsedMs: Date.now() - started }),
    );
  } finally {
    await restoreDeferredIndexes(deps.dataSource);
  }

  const projections = [];
  for (const projection of selected) {
    const rows: Record<string, number> = {};
    for (const table of projection.tables) {
      const [row] = await deps.dataSource.query(`SELECT count(*)::bigint AS count FROM ${quoteTable(table)}`);
      rows[table] = Number(row.count);
    }
    projections.push({
      name: projection.name,
      eventsApplied: replay.applied.get(projection.name) ?? 0,
      rows,
      bulk: replay.bulk.includes(projection.name),
    });
  }
  return { eventsReplayed: replay.eventsReplayed, position: replay.position, durationMs: Date.now() - started, projections, snapshot };
}

/** Truncates the projections' tables and sets their checkpoints to 0, in one transaction. */
async function resetProjections(dataSource: DataSource, selected: readonly Projection[]): Promise<void> {
  await dataSource.transaction(async (manager) => {
    const tables = selected.flatMap((projection) => projection.tables);
    if (tables.length) await manager.query(`TRUNCATE TABLE ${tables.map(quoteTable).join(', ')} RESTART IDENTITY`);
    await manager.query(
      `INSERT INTO projection_checkpoints (name, position) SELECT unnest($1::text[]), 0
       ON CONFLICT (name) DO UPDATE SET position = 0, updated_at = now(), last_error = NULL, last_error_at = NULL`,
      [selected.map((projection) => projection.name)],
    );
  });
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
