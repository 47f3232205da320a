import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { type Projection, ProjectionEventError } from './projection';

/**
 * Building blocks for `Projection.applyBatch`: fold the hot events of a batch set-based (one statement for many
 * events) and everything else one event at a time through `apply`, in ledger order, so the tables end exactly as
 * `apply` one by one leaves them.
 */

/**
 * Applies `events` in order: each maximal run of consecutive events `inSet` accepts goes to `applySet` at once,
 * every other event to `projection.apply` (errors naming the event). Keeping runs in order is what makes this
 * equal to per-event application whatever the set-based fold reads: an event outside the set sees every earlier
 * run already written, and a run sees every earlier event.
 */
export async function applyInRuns(
  projection: Pick<Projection, 'apply'>,
  events: readonly RecordedEvent[],
  manager: EntityManager,
  inSet: (event: RecordedEvent) => boolean,
  applySet: (run: readonly RecordedEvent[]) => Promise<void>,
): Promise<void> {
  let start = 0;
  while (start < events.length) {
    const setBased = inSet(events[start]);
    let end = start + 1;
    while (end < events.length && inSet(events[end]) === setBased) end++;
    const run = events.slice(start, end);
    if (setBased) await applySet(run);
    else for (const event of run) await applyOne(projection, event, manager);
    start = end;
  }
}

async function applyOne(projection: Pick<Projection, 'apply'>, event: RecordedEvent, manager: EntityManager): Promise<void> {
  try {
    await projection.apply(event, manager);
  } catch (error) {
    throw error instanceof ProjectionEventError ? error : new ProjectionEventError(event, error);
  }
}

/** `decode(event)`, or a ProjectionEventError naming the event when its data is not what the fold expects. */
export function decodeEvent<T>(event: RecordedEvent, decode: (event: RecordedEvent) => T): T {
  try {
    return decode(event);
  } catch (error) {
    throw new ProjectionEventError(event, error);
  }
}

/**
 * The per-event guard of an upsert fold ("apply only if `rank` > the row's stored rank, then store `rank`"),
 * made set-based. Applied one by one, item k of a key counts iff its rank exceeds both the stored rank and the rank
 * of every earlier item of that key in the list: an earlier item with a rank ≥ k's either counted (the stored rank
 * is now ≥ k's) or was skipped (so its rank, hence k's, was ≤ the stored rank). This keeps the items whose rank beats
 * every earlier one of their key; the statement then only has to fold, per key, those above the stored rank, which
 * (ranks now strictly increasing per key) are a suffix, and store the largest. In the runner's batches ranks
 * (revisions, positions) already increase; this matters for an event handed over twice, as a hand-run replay does.
 */
export function advancingPerKey<T, K>(items: readonly T[], key: (item: T) => K, rank: (item: T) => number): T[] {
  const highest = new Map<K, number>();
  const kept: T[] = [];
  for (const item of items) {
    const previous = highest.get(key(item));
    if (previous !== undefined && rank(item) <= previous) continue;
    highest.set(key(item), rank(item));
    kept.push(item);
  }
  return kept;
}
