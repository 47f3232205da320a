import type { DataSource } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { BulkLoad, type BulkProjection, canBulkLoad } from './bulk-load';
import type { Checkpoints, CheckpointStore } from './checkpoint-store';
import { inLanes } from './in-lanes';
import type { Projection } from './projection';
import { type PageReader, readAhead } from './read-ahead';

/** What a replay tells its caller after every page (the rebuild's progress hook): the work done, in events. */
export type PageDone = (done: number) => void;

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
 * while the rebuild's own queries keep two. The others take the classic path (after the bulk pass, so its lanes
 * need no room of their own).
 */
export function bulkProjectionsOf(selected: readonly Projection[], checkpoints: Checkpoints, poolSize: number): BulkProjection[] {
  const room = Math.max(0, poolSize - 2);
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
 * Every projection from its checkpoint to the head, in at most two passes over the ledger, each reading it once,
 * one page ahead (readAhead):
 *
 * 1. the BulkLoads of `bulk` (bulk-load.ts): each folds every page in memory and COPYs its rows in ONE transaction
 *    of its own, committed at the end with its checkpoint at the last position;
 * 2. the other projections still behind the head, each in a transaction of its own per page (its rows and its
 *    checkpoint: projections write disjoint tables and each has its own checkpoint, so one projection's batch never
 *    waits for another's), `lanes` at a time: while one lane's projection builds its statements here, another's run
 *    in Postgres. The longest projection of the previous page starts first. A projection sees its pages in ledger
 *    order (a page starts once the previous one is done for all), so its rows are what one transaction per batch
 *    leaves.
 *
 * Not both at once: a bulk load's transaction, open for the whole pass, holds back the horizon under which
 * Postgres may prune dead row versions, and the classic path's upserts of small aggregate tables (a balance row
 * updated by every charge) then pile up versions that every later upsert walks through (measured on a 200,000-event
 * ledger: 4 times slower, Postgres at 4 times its CPU). When every projection replays from 0 with a bulk fold, there
 * is one pass.
 *
 * On any failure every BulkLoad is rolled back (its tables and checkpoint stay as the reset left them: empty, 0)
 * and the error is thrown once everything in flight has stopped; the classic projections keep the pages they
 * committed, with their checkpoints. `bulk` must be a subset of `deps.projections` whose checkpoints are 0.
 * `onPage` gets the work done so far in events of `total` (the head when the rebuild started): with two passes, each
 * event read counts in proportion to its pass's share of the events to read.
 */
export async function replayLedger(
  deps: ReplayDependencies,
  bulk: readonly BulkProjection[],
  total: number,
  onPage: PageDone,
): Promise<Replay> {
  const checkpoints = await deps.checkpoints.ensure(deps.projections.map((projection) => projection.name));
  const classic = deps.projections.filter((projection) => !bulk.includes(projection as BulkProjection));
  const behind = classic.filter((projection) => (checkpoints.get(projection.name) ?? 0) < total);
  const classicFrom = behind.length ? Math.min(...behind.map((projection) => checkpoints.get(projection.name) ?? 0)) : total;
  const planned = (bulk.length ? total : 0) + (total - classicFrom);
  let read = 0;
  const progress = (events: number) => {
    read += events;
    onPage(planned > 0 ? Math.min(total, Math.round((read * total) / planned)) : read);
  };
  const applied = new Map<string, number>();
  const passes: Array<{ events: number; position: number }> = [];
  if (bulk.length) {
    passes.push(await bulkPass(deps, bulk, applied, progress));
  }
  // Behind: projections that have events to apply (those at the head already would only open empty transactions).
  if (behind.length || !bulk.length) {
    const lowest = classic.length ? Math.min(...classic.map((projection) => checkpoints.get(projection.name) ?? 0)) : 0;
    passes.push(await classicPass(deps, classic, checkpoints, behind.length ? classicFrom : lowest, applied, progress));
  }
  return {
    eventsReplayed: Math.max(...passes.map((pass) => pass.events)),
    position: Math.min(...passes.map((pass) => pass.position)),
    applied,
    bulk: bulk.map((projection) => projection.name),
  };
}

/** The bulk pass: every page to every load; on a failure all of them rolled back. */
async function bulkPass(
  deps: ReplayDependencies,
  bulk: readonly BulkProjection[],
  applied: Map<string, number>,
  progress: (events: number) => void,
): Promise<{ events: number; position: number }> {
  const loads = await startLoads(deps.dataSource, bulk);
  let position = 0;
  let events = 0;
  try {
    for await (const page of readAhead(deps.read, 0, deps.pageSize)) {
      await allSettled(loads.map((load) => load.feed(page)));
      events += page.length;
      position = page[page.length - 1].position;
      progress(page.length);
    }
    await finishLoads(loads, position);
  } catch (error) {
    await Promise.all(loads.map((load) => load.abort()));
    throw error;
  }
  for (const load of loads) applied.set(load.projection.name, load.eventsApplied);
  return { events, position };
}

/** The classic pass from `from`: every page to every projection behind it, each its own transaction. */
async function classicPass(
  deps: ReplayDependencies,
  classic: readonly Projection[],
  checkpoints: Checkpoints,
  from: number,
  applied: Map<string, number>,
  progress: (events: number) => void,
): Promise<{ events: number; position: number }> {
  const lastMs = new Map<Projection, number>(classic.map((projection) => [projection, 0]));
  let position = from;
  let events = 0;
  for await (const page of readAhead(deps.read, from, deps.pageSize)) {
    await applyClassic(deps, classic, checkpoints, page, lastMs, applied);
    events += page.length;
    position = page[page.length - 1].position;
    progress(page.length);
  }
  return { events, position };
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
  const last = events[events.length - 1].position;
  const due = classic.filter((projection) => (checkpoints.get(projection.name) ?? 0) < last);
  const order = due.sort((a, b) => (lastMs.get(b) ?? 0) - (lastMs.get(a) ?? 0));
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
