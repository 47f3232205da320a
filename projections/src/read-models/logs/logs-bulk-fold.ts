import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { LogsEventType } from '#server/modules/logs/logs.events';
import type { BulkBarrier, BulkFold, BulkRows } from '../../runner/bulk-fold';
import { ensureLogPartitions, logMonthOf } from './log-partitions';
import { accountRowOf, applyPurge, consumeRowOf, consumeRowValues, isConsumeRow, purgeOf } from './logs-rows';

/** The columns of a consume row (a relay charge, a channel test), in the order the fold's rows give them. */
export const CONSUME_COLUMNS = [
  'id',
  'user_id',
  'created_at',
  'type',
  'content',
  'username',
  'token_name',
  'model_name',
  'quota',
  'prompt_tokens',
  'completion_tokens',
  'use_time',
  'is_stream',
  'channel_id',
  'token_id',
  'group',
  'other',
  'model_ratio',
  'completion_ratio',
  'group_ratio',
  'model_price',
  'frt',
  'cache_tokens',
  'usage_source',
  'end_reason',
] as const;

/** The columns of an account event's row (the others keep their defaults, as apply's insert leaves them). */
export const ACCOUNT_COLUMNS = ['id', 'user_id', 'created_at', 'type', 'content', 'username', 'other'] as const;

/**
 * The logs projection's rebuild fold (bulk-fold.ts). Each event's row is built by the same functions as `apply`'s
 * (logs-rows.ts) and written with COPY; what needs SQL runs as a barrier in its place, after every earlier row is
 * written:
 *
 * - a row's month partition (log-partitions.ts) is created before the first row of that month is written (COPY into
 *   `logs` would otherwise route the month's rows to the default partition, as an insert would);
 * - a purge (LogsPurged, LogsRetentionApplied) runs `apply`'s own purge SQL: months dropped, the boundary month's
 *   rows deleted, its log_purges row with the count. It may drop partitions, so months are checked again after it.
 *
 * `apply`'s guard against rows a later purge deleted never fires in a replay in ledger order (no purge after the
 * event is recorded yet), nor does its ON CONFLICT (each event comes once); the fold needs neither.
 */
export class LogsBulkFold implements BulkFold {
  private consumeRows: unknown[][] = [];
  private accountRows: unknown[][] = [];
  /** Months whose partition this load has made sure of (forgotten after a purge, which may drop some). */
  private months = new Set<string>();
  /** The bounds of the month of the last row checked (in `months`): most rows fall in it, with no date arithmetic. */
  private lastMonth = { from: 0, to: 0 };
  /** The row barrierBefore built for the event add() gets next (barrierBefore is asked first about every event). */
  private next: { event: RecordedEvent; row: unknown[] | null; account: boolean } | null = null;

  barrierBefore(event: RecordedEvent): BulkBarrier | null {
    const purge = event.type === LogsEventType.LogsPurged || event.type === LogsEventType.LogsRetentionApplied ? purgeOf(event) : null;
    if (purge) {
      this.next = { event, row: null, account: false };
      return async (manager: EntityManager) => {
        await applyPurge(event, purge, manager);
        this.months = new Set();
        this.lastMonth = { from: 0, to: 0 };
      };
    }
    const built = this.rowOf(event);
    this.next = { event, ...built };
    if (built.row === null) return null;
    const createdAt = built.row[2] as number;
    if (createdAt >= this.lastMonth.from && createdAt < this.lastMonth.to) return null;
    const month = logMonthOf(createdAt);
    if (month === null) return null;
    const known = this.months.has(month.name);
    this.months.add(month.name);
    this.lastMonth = month;
    if (known) return null;
    return (manager: EntityManager) => ensureLogPartitions(manager, [createdAt]);
  }

  add(event: RecordedEvent): void {
    const next = this.next !== null && this.next.event === event ? this.next : { event, ...this.rowOf(event) };
    this.next = null;
    if (next.row === null) return;
    if (next.account) this.accountRows.push(next.row);
    else this.consumeRows.push(next.row);
  }

  drain(): BulkRows[] {
    const batches: BulkRows[] = [
      { table: 'logs', columns: CONSUME_COLUMNS, rows: this.consumeRows },
      { table: 'logs', columns: ACCOUNT_COLUMNS, rows: this.accountRows },
    ];
    this.consumeRows = [];
    this.accountRows = [];
    return batches;
  }

  finish(): BulkRows[] {
    return this.drain();
  }

  /** The row `apply` inserts for an event that is not a purge, in its COPY columns, or null. */
  private rowOf(event: RecordedEvent): { row: unknown[] | null; account: boolean } {
    if (isConsumeRow(event)) {
      const row = consumeRowOf(event);
      if (row === null) return { row: null, account: false };
      return { account: false, row: consumeRowValues(event.position, row) };
    }
    if (event.type === LogsEventType.LogsPurged || event.type === LogsEventType.LogsRetentionApplied) return { row: null, account: false };
    const account = accountRowOf(event);
    if (account === null) return { row: null, account: true };
    return {
      account: true,
      row: [event.position, account.userId, account.createdAt, account.line.type, account.line.content, account.username, ''],
    };
  }
}
