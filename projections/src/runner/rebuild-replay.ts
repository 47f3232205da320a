import type { DataSource } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { BulkLoad, type BulkProjection, canBulkLoad } from './bulk-load';
import type { Checkpoints, CheckpointStore } from './checkpoint-store';
import { inLanes } from './in-lanes';
import type { Projection } from './projection';
import { type PageReader, readAhead } from './read-ahead';

/** What a replay tells its caller after every page (the rebuild's progress hook). */
export type PageDone = (eventsReplayed: number) => void;

export interface ReplayDependencies {
  dataSource: DataSource;
  checkpoints: CheckpointStore;
  /** Every registered projection: those not chosen for the bulk path replay classically from their checkpoints. */
  projections: readonly Projection[];
  /** Reads a page of the ledger (the store's readAll, or its faster replay reader). */
  read: PageReader;
  pageSize: number;
  /** Projections of the classic path applying a page at the same time, each in its own transaction. */
  lanes: number;
}

export interface Replay {
  eventsReplayed: number;
  position: number;
  applied: Map<string, number>;
  /** The projections that went through a BulkLoad. */
  bulk: string[];
}

/**
 * The projections of `selected` that replay through a BulkLoad: those that have a `bulkFold` and whose checkpoint is
 * 0 (the reset left it there and no snapshot moved it), as many as the pool can give a connection of their own to
 * while the classic lanes and the rebuild's own queries keep theirs. The others take the classic path.
 */
export function bulkProjectionsOf(
  selected: readonly Projection[],
  checkpoints: Checkpoints,
  poolSize: number,
  lanes: number,
): BulkProjection[] {
  const room = Math.max(0, poolSize - lanes - 2);
  return selected
    .filter((projection): projection is BulkProjection => canBulkLoad(projection) && checkpoints.get(projection.name) === 0)
    .slice(0, room);
}

/** Connections the data source's pool holds at most (pg's default 10 when unset). */
export function poolSizeOf(dataSource: DataSource): number {
  const max = (dataSource.options as { extra?: { max?: unknown } }).extra?.max;
  return typeof max === 'number' && max > 0 ? max : 10;
}

/**
 * Every projection from its checkpoint to the head, the ledger read once, one page ahead (readAhead). Each page goes
 * at the same time to
 *
 * - the BulkLoads of `bulk` (bulk-load.ts: each folds the page in memory and COPYs its rows in one transaction of its
 *   own, committed at the end with its checkpoint at the last position), and
 * - the other projections, each in a transaction of its own per page (its rows and its checkpoint: projections write
 *   disjoint tables and each has its own checkpoint, so one projection's batch never waits for another's), `lanes`
 *   at a time: while one lane's projection builds its statements here, another's run in Postgres. The longest
 *   projection of the previous page starts first. A projection sees its pages in ledger order (a page starts once
 *   the previous one is done for all), so its rows are what one transaction per batch leaves.
 *
 * On any failure every BulkLoad is rolled back (its tables and checkpoint stay as the reset left them: empty, 0)
 * and the error is thrown once everything in flight has stopped; the classic projections keep the pages they
 * committed, with their checkpoints. `bulk` must be a subset of `deps.projections` whose checkpoints are 0.
 */
export async function replayLedger(deps: ReplayDependencies, bulk: readonly BulkProjection[], onPage: PageDone): Promise<Replay> {
  const checkpoints = await deps.checkpoints.ensure(deps.projections.map((projection) => projection.name));
  const classic = deps.projections.filter((projection) => !bulk.includes(projection as BulkProjection));
  const applied = new Map<string, number>();
  const loads = await startLoads(deps.dataSource, bulk);
  let position = Math.min(...checkpoints.values());
  let eventsReplayed = 0;
  const lastMs = new Map<Projection, number>(classic.map((projection) => [projection, 0]));
  try {
    for await (const events of readAhead(deps.read, position, deps.pageSize)) {
      await allSettled([...loads.map((load) => load.feed(events)), applyClassic(deps, classic, checkpoints, events, lastMs, applied)]);
      eventsReplayed += events.length;
      position = events[events.length - 1].position;
      onPage(eventsReplayed);
    }
    await finishLoads(loads, position);
  } catch (error) {
    await Promise.all(loads.map((load) => load.abort()));
    throw error;
  }
  for (const load of loads) applied.set(load.projection.name, load.eventsApplied);
  return { eventsReplayed, position, applied, bulk: bulk.map((projection) => projection.name) };
}

/** One BulkLoad per projection, each from checkpoint 0; if one cannot start, those started are rolled back. */
async function startLoads(dataSource: DataSource, bulk: readonly BulkProjection[]): Promise<BulkLoad[]> {
  const started = await Promise.allSettled(bulk.map((projection) => BulkLoad.start(dataSource, projection, 0)));
  const loads = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = started.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) {
    await Promise.all(loads.map((load) => load.abort()));
    throw failed.reason;
  }
  return loads;
}

/**
 * Every load's remaining rows and its checkpoint written first, and only then the commits: a failure before the
 * commits rolls every load back. (A commit that fails after another committed leaves that one complete and the
 * failed one as the reset left it: each projection's tables still match its checkpoint.)
 */
async function finishLoads(loads: readonly BulkLoad[], position: number): Promise<void> {
  await allSettled(loads.map((load) => load.complete(position)));
  await allSettled(loads.map((load) => load.commit()));
}

/** One page through the classic path: each projection its own transaction, `lanes` at a time. */
async function applyClassic(
  deps: ReplayDependencies,
  classic: readonly Projection[],
  checkpoints: Checkpoints,
  events: RecordedEvent[],
  lastMs: Map<Projection, number>,
  applied: Map<string, number>,
): Promise<void> {
  const order = [...classic].sort((a, b) => (lastMs.get(b) ?? 0) - (lastMs.get(a) ?? 0));
  await inLanes(order, Math.max(1, deps.lanes), async (projection) => {
    const begun = Date.now();
    const result = await deps.checkpoints.applyBatch([projection], checkpoints, events, { asynchronousCommit: true });
    lastMs.set(projection, Date.now() - begun);
    applied.set(projection.name, (applied.get(projection.name) ?? 0) + (result.applied.get(projection.name) ?? 0));
  });
}

/** Waits for every promise (nothing left running behind a failure), then throws the first failure. */
async function allSettled(work: ReadonlyArray<Promise<unknown>>): Promise<void> {
  const results = await Promise.allSettled(work);
  const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed) throw failed.reason;
}
