/**
 * CPU per event of the projections' bulk folds (projections/src/runner/bulk-fold.ts), in isolation: no Postgres, no
 * COPY, just what a rebuild's hot loop spends in `barrierBefore` and `add` (and once in `finish`), in plain node:
 *
 *   node -r ./test/support/swc-register.js test/bench/rebuild/fold-cost.bench.ts [events=200000] [rounds=3] [name,…]
 *
 * Generates `events` events of the rebuild benchmark's ledger (ledger-generator.ts), then per projection:
 * - cold: the first pass over fresh event objects, decoding included (in a rebuild the first projection to read a
 *   charge pays its decode; the codec keeps it on the event for the others);
 * - warm: further passes over the same (decoded) events with a new fold each, the best of `rounds`.
 * Prints CPU µs per event the projection handles and per ledger event (the budget of issue 20 §4: ~20 µs of CLI CPU per
 * ledger event for all projections together). A barrier is run against a stub that answers every query with no row
 * but a cursor at the head (the usual rebuild: the projector had caught up), so a fold's SQL is not measured here.
 */
import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import type { BulkProjection } from '#projections/runner/bulk-load';
import { AccountBalancesProjection } from '#projections/read-models/account-balances/account-balances.projection';
import { TokenBalancesProjection } from '#projections/read-models/token-balances/token-balances.projection';
import { QuotaReminderProjection } from '#server/modules/quota-reminder/quota-reminder.projection';
import type { OptionsService } from '#server/modules/options/options.service';
import { generateLedger } from './ledger-generator';

const total = Math.max(1, Number(process.argv[2] ?? 200_000));
const rounds = Math.max(1, Number(process.argv[3] ?? 3));
const only = process.argv[4]?.split(',');

const options = { getNumber: () => 1000 } as unknown as OptionsService;
// The folds use neither the admission service, the data source nor the mailer (afterCommit does).
const PROJECTIONS: BulkProjection[] = [
  new AccountBalancesProjection(null as never, null as never),
  new TokenBalancesProjection(null as never, null as never),
  new QuotaReminderProjection(options, null as never),
];

/** The loop alone, as a baseline: a fold that handles every event and does nothing with it. */
const NOOP: BulkProjection = {
  name: '(loop alone)',
  tables: [],
  handles: [],
  apply: async () => undefined,
  bulkFold: () => ({ add: () => undefined, drain: () => [], finish: () => [] }),
};

/** Answers the folds' barriers: a cursor at the head (decide nothing), no other row. */
const stubManager = {
  query: async (sql: string) => (sql.includes('quota_reminder_cursor') ? [{ position: String(Number.MAX_SAFE_INTEGER) }] : []),
} as unknown as EntityManager;

function ledger(): RecordedEvent[] {
  const events: RecordedEvent[] = [];
  for (const chunk of generateLedger(total, { chunk: 10_000, seed: 7 })) {
    for (const row of chunk) {
      events.push({ ...row.event, streamId: row.streamId, revision: row.revision, position: row.position, createdAt: row.createdAt });
    }
  }
  return events;
}

/**
 * One pass as BulkLoad.feed makes it: barrierBefore, the barrier when there is one, add; then finish. Timed in CPU
 * time of the process (process.cpuUsage: garbage collection included, other processes on a busy machine not).
 */
async function pass(
  projection: BulkProjection,
  events: readonly RecordedEvent[],
): Promise<{ foldMs: number; finishMs: number; rows: number }> {
  const fold = projection.bulkFold();
  const started = process.cpuUsage();
  for (const event of events) {
    const barrier = fold.barrierBefore?.(event);
    if (barrier) await barrier(stubManager);
    fold.add(event);
  }
  fold.drain();
  const folded = process.cpuUsage(started);
  const rows = fold.finish().reduce((sum, batch) => sum + batch.rows.length, 0);
  const finished = process.cpuUsage(started);
  const ms = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;
  return { foldMs: ms(folded), finishMs: ms(finished) - ms(folded), rows };
}

async function main(): Promise<void> {
  const selected = [NOOP, ...PROJECTIONS.filter((projection) => !only || only.includes(projection.name))];
  process.stdout.write(`${total} ledger events, best of ${rounds} warm rounds\n`);
  for (const projection of selected) {
    const handles = new Set<string>(projection.handles);
    const events = ledger().filter((event) => projection === NOOP || handles.has(event.type)); // fresh objects: the cold pass decodes them
    const cold = await pass(projection, events);
    let warm = await pass(projection, events);
    for (let round = 1; round < rounds; round++) {
      const next = await pass(projection, events);
      if (next.foldMs < warm.foldMs) warm = next;
    }
    const perHandled = (ms: number) => ((ms * 1000) / Math.max(1, events.length)).toFixed(2);
    const perLedger = (ms: number) => ((ms * 1000) / total).toFixed(2);
    process.stdout.write(
      `${projection.name.padEnd(16)} handles ${String(events.length).padStart(7)}: ` +
        `cold ${perHandled(cold.foldMs)} µs/handled (${perLedger(cold.foldMs)} µs/ledger event), ` +
        `warm ${perHandled(warm.foldMs)} µs/handled (${perLedger(warm.foldMs)} µs/ledger event), ` +
        `finish ${warm.finishMs.toFixed(1)} ms for ${warm.rows} rows\n`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
