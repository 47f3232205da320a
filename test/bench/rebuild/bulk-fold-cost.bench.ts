/**
 * CPU per event of the rebuild's in-memory folds (BulkFold.add), in plain node, no database:
 *
 *   node --expose-gc -r ./test/support/swc-register.js test/bench/rebuild/bulk-fold-cost.bench.ts [events=200000] [rounds=3] [projection …]
 *
 * Generates `events` events of the rebuild benchmark's ledger (ledger-generator.ts) and, per projection, times a
 * fresh fold's `add` over the events it handles, `rounds` times: `cold` on events nobody decoded yet (the charge's
 * payload parsed inside the fold, as when this projection is the first to read the page), `warm` on the same
 * events once decoded (the codec caches the decoding on the event object, as when another fold of the same page
 * read it first). Prints the process's CPU time (user + system, so a busy machine's other work is left out) per
 * handled event and per ledger event (the best round), the time of `finish`, the rows it returns and the heap they
 * hold (with --expose-gc).
 */
import { performance } from 'node:perf_hooks';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { QUOTA_CONSUMED } from '#server/modules/accounts/quota-consumed.event';
import { quotaConsumedData } from '#server/modules/accounts/quota-consumed-event-codec';
import { AccountBalancesProjection } from '#projections/read-models/account-balances/account-balances.projection';
import { LogsProjection } from '#projections/read-models/logs/logs.projection';
import { StatementProjection } from '#projections/read-models/statement/statement.projection';
import { ChannelStatusProjection } from '#projections/read-models/channel-status/channel-status.projection';
import { MidjourneyTasksProjection } from '#projections/read-models/midjourney-tasks/midjourney-tasks.projection';
import { QuotaDataProjection } from '#projections/read-models/quota-data/quota-data.projection';
import { RedemptionsProjection } from '#projections/read-models/redemptions/redemptions.projection';
import { TasksProjection } from '#projections/read-models/tasks/tasks.projection';
import { TokenBalancesProjection } from '#projections/read-models/token-balances/token-balances.projection';
import { TopUpOrdersProjection } from '#projections/read-models/topup-orders/topup-orders.projection';
import type { Projection } from '#projections/runner/projection';
import type { OptionsService } from '#server/modules/options/options.service';
import { QuotaReminderProjection } from '#server/modules/quota-reminder/quota-reminder.projection';
import { generatedEvents } from '../../../projections/test/bulk-equivalence';

const total = Math.max(1000, Number(process.argv[2] ?? 200_000));
const rounds = Math.max(1, Number(process.argv[3] ?? 3));
const only = new Set(process.argv.slice(4));

/**
 * The projections, built without the dependencies their folds do not use (the balances' admission service and data
 * source, the reminder's mailer serve afterCommit only); those with a bulkFold are measured. The quota reminder's
 * barrier (reading its cursor) is not run: its fold then decides nothing, as in a rebuild after the projector caught up.
 */
const candidates: Projection[] = [
  new AccountBalancesProjection(null as never, null as never),
  new TokenBalancesProjection(null as never, null as never),
  new QuotaReminderProjection({ getNumber: () => 0 } as unknown as OptionsService, null as never),
  new ChannelStatusProjection(),
  new QuotaDataProjection(),
  new RedemptionsProjection(),
  new TopUpOrdersProjection(),
  new TasksProjection(),
  new MidjourneyTasksProjection(),
  new LogsProjection(),
  new StatementProjection(),
];
const projections = candidates.filter((projection) => projection.bulkFold && (only.size === 0 || only.has(projection.name)));

const gc = (globalThis as { gc?: () => void }).gc;
const heapMb = () => {
  gc?.();
  return process.memoryUsage().heapUsed / 1e6;
};

function fold(projection: Projection, events: readonly RecordedEvent[]) {
  const before = heapMb();
  const bulk = projection.bulkFold!();
  const started = process.cpuUsage();
  for (const event of events) bulk.add(event);
  const spent = process.cpuUsage(started);
  const added = (spent.user + spent.system) / 1000;
  const held = heapMb() - before;
  const finishing = performance.now();
  const rows = bulk.finish().reduce((sum, batch) => sum + batch.rows.length, 0);
  return { addMs: added, finishMs: performance.now() - finishing, rows, heldMb: held };
}

const generating = performance.now();
console.log(`generating ${total} events …`);
const events = generatedEvents(total);
console.log(`generated in ${((performance.now() - generating) / 1000).toFixed(1)} s`);
const us = (ms: number, count: number) => ((ms * 1000) / Math.max(1, count)).toFixed(3);

for (const projection of projections) {
  const handles = new Set<string>(projection.handles);
  const best = { cold: Infinity, warm: Infinity };
  let last = { addMs: 0, finishMs: 0, rows: 0, heldMb: 0 };
  const own = events.filter((event) => handles.has(event.type));
  if (own.length === 0) {
    console.log(`${projection.name.padEnd(18)} no event of its types in this ledger`);
    continue;
  }
  let handled: RecordedEvent[] = [];
  for (let round = 0; round < rounds; round++) {
    // Fresh event objects for each cold round: nothing decoded yet (the codec's cache is not an own enumerable key).
    handled = own.map((event) => ({ ...event }));
    best.cold = Math.min(best.cold, fold(projection, handled).addMs);
    for (const event of handled) if (event.type === QUOTA_CONSUMED) quotaConsumedData(event);
    last = fold(projection, handled);
    best.warm = Math.min(best.warm, last.addMs);
  }
  // The heap a row holds is only worth printing over many rows (a few are lost in the heap's noise).
  const perRow = gc && last.rows >= 1000 ? ` (${((last.heldMb * 1e6) / last.rows).toFixed(0)} B/row)` : '';
  console.log(
    `${projection.name.padEnd(18)} handled ${handled.length}/${events.length}` +
      `  cold ${us(best.cold, handled.length)} µs/handled (${us(best.cold, events.length)} per ledger event)` +
      `  warm ${us(best.warm, handled.length)} µs/handled (${us(best.warm, events.length)} per ledger event)` +
      `  finish ${last.finishMs.toFixed(1)} ms, ${last.rows} rows` +
      (gc ? `, ${last.heldMb.toFixed(1)} MB held${perRow}` : ''),
  );
}
