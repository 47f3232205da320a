import type { DataSource } from 'typeorm';
import type { EventStore } from '#server/ledger/event-store.port';
import type { CheckpointStore } from './checkpoint-store';
import { dropDeferredIndexes, restoreDeferredIndexes } from './deferred-indexes';
import type { Projection } from './projection';
import { latestSnapshot, restoreSnapshot } from './projection-snapshot';
import { inLanes } from './in-lanes';
import { readAhead } from './read-ahead';
import { quoteTable } from './quote-table';

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
  /** Events per transaction (and per page read) while replaying. */
  batchSize: number;
  /**
   * `snapshot` (default): start from the latest ledger snapshot when there is one (its tables restored, checkpoints at
   * its positions), replaying only what came after; `archive`: replay the whole ledger, archived segments included.
   */
  from?: 'snapshot' | 'archive';
  /** Projections applying a page at the same time, each in its own transaction (default 1). */
  lanes?: number;
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
 * Empties the chosen projections' tables, sets their checkpoints to 0 and replays the ledger from the start, fast:
 *
 * - the next page is read while the current one is applied (readAhead), in pages of `batchSize` events, each page
 *   one ordinary batch (read-model writes and checkpoints in one transaction, as live);
 * - each batch commits asynchronously (nobody reads the tables back meanwhile; a crash loses at most the last
 *   batches, and the checkpoints with them, so whatever resumes re-applies exactly those);
 * - the projections' `deferredIndexes` are dropped for the replay and created once at the end (deferred-indexes.ts).
 *
 * The result is the same rows as live: the same `applyBatch`es in ledger order, whatever the batch size (each
 * projection's batch path equals `apply` event by event). The caller must hold the projector leadership, so no live
 * runner writes these tables meanwhile. Projections not chosen keep their checkpoints and skip the events they
 * already have.
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
    replay = await replayLedger(deps, selected, total, hooks);
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
    projections.push({ name: projection.name, eventsApplied: replay.applied.get(projection.name) ?? 0, rows });
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

interface Replay {
  eventsReplayed: number;
  position: number;
  applied: Map<string, number>;
}

/**
 * Every projection from its checkpoint to the head, reading one page ahead. Each page is applied to each
 * projection in a transaction of its own (its rows and its checkpoint: projections write disjoint tables and each
 * has its own checkpoint, so one projection's batch never waits for another's), `lanes` at a time: while one
 * lane's projection builds its statements here, another's run in Postgres. The longest projection of the previous
 * page starts first. A projection sees its pages in ledger order (a page starts once the previous one is done for
 * all), so its rows are what one transaction per batch leaves.
 */
async function replayLedger(
  deps: RebuildDependencies,
  selected: readonly Projection[],
  total: number,
  hooks: RebuildHooks,
): Promise<Replay> {
  const checkpoints = await deps.checkpoints.ensure(deps.projections.map((projection) => projection.name));
  const applied = new Map(selected.map((projection) => [projection.name, 0]));
  let position = Math.min(...checkpoints.values());
  let eventsReplayed = 0;
  const started = Date.now();
  const lastMs = new Map<Projection, number>(deps.projections.map((projection) => [projection, 0]));
  hooks.onProgress?.({ done: 0, total, elapsedMs: 0 });
  const pages = readAhead((after, maxCount) => deps.store.readAll({ after, maxCount }), position, deps.batchSize);
  for await (const events of pages) {
    const order = [...deps.projections].sort((a, b) => (lastMs.get(b) ?? 0) - (lastMs.get(a) ?? 0));
    await inLanes(order, Math.max(1, deps.lanes ?? 1), async (projection) => {
      const begun = Date.now();
      const result = await deps.checkpoints.applyBatch([projection], checkpoints, events, { asynchronousCommit: true });
      lastMs.set(projection, Date.now() - begun);
      const count = result.applied.get(projection.name) ?? 0;
      if (applied.has(projection.name)) applied.set(projection.name, (applied.get(projection.name) ?? 0) + count);
    });
    eventsReplayed += events.length;
    position = events[events.length - 1].position;
    hooks.onProgress?.({ done: eventsReplayed, total, elapsedMs: Date.now() - started });
  }
  return { eventsReplayed, position, applied };
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
