import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import type { BulkBarrier, BulkFold, BulkRows } from '../../runner/bulk-fold';
import { hourBucket, quotaDataChargeOfEvent, quotaDataKey } from './quota-data';

const COLUMNS = ['id', 'user_id', 'username', 'model_name', 'created_at', 'count', 'quota', 'token_used', 'position'] as const;

/** A quota_data row as the fold holds it: its values in COLUMNS order, so the rows are handed over as they are. */
type QuotaDataRow = [
  id: number,
  userId: number,
  username: string,
  modelName: string,
  hour: number,
  count: number,
  quota: number,
  tokenUsed: number,
  position: number,
];
const COUNT = 5;
const QUOTA = 6;
const TOKEN_USED = 7;
const POSITION = 8;

/**
 * How far behind the ledger's clock an hour's rows stay in memory before they are written: a charge's hour is its
 * admission time's, and a charge reaches the ledger when its request ends, so the rows of an hour keep growing for as
 * long as requests admitted in it still run. Two hours cover all but the longest; a charge later than that is still
 * counted exactly (`late`, below), only less cheaply.
 */
export const QUOTA_DATA_HOURS_HELD = 2;

/**
 * quota_data rebuilt in memory (bulk-fold.ts): one row per (user, name, model, hour), each one small array keyed by
 * quotaDataKey, built once per charge, folded as apply's upsert folds it.
 *
 * The table is the projection's biggest (827,329 rows for a million events of the benchmark's ledger), so the fold
 * does not hold it to the end: once the ledger's clock (the events' `createdAt`, which only moves forward) is
 * QUOTA_DATA_HOURS_HELD hours past an hour, that hour's rows are handed to `drain` and written while the replay goes
 * on. Memory then grows with the rows of a few hours, not with the history, and the rows reach Postgres while the
 * rebuild still folds instead of all at the end. A charge admitted in an hour already written (a request that ran
 * longer than that) is kept apart, in `late`, and applied at the end by the projection's batch upsert
 * (`applyLate`, its applyBatch), which adds it to the row written for its key or inserts the row, as apply would.
 */
export class QuotaDataBulkFold implements BulkFold {
  /** Rows of the hours still held, per hour. */
  private readonly hours = new Map<number, Map<string, QuotaDataRow>>();
  /** Charges admitted in an hour already written, in ledger order. */
  private late: RecordedEvent[] = [];
  /** Hours before this one are written (or were empty). */
  private writtenBelow = Number.NEGATIVE_INFINITY;
  /** The ledger clock's hour: the latest `createdAt` seen. */
  private ledgerHour = Number.NEGATIVE_INFINITY;

  constructor(private readonly applyLate: (events: readonly RecordedEvent[], manager: EntityManager) => Promise<void>) {}

  add(event: RecordedEvent): void {
    const ledgerHour = hourBucket(Math.floor(event.createdAt.getTime() / 1000));
    if (ledgerHour > this.ledgerHour) this.ledgerHour = ledgerHour;
    const charge = quotaDataChargeOfEvent(event);
    if (!charge) return;
    if (charge.hour < this.writtenBelow) {
      this.late.push(event);
      return;
    }
    let rows = this.hours.get(charge.hour);
    if (rows === undefined) {
      rows = new Map();
      this.hours.set(charge.hour, rows);
    }
    const key = quotaDataKey(charge);
    const row = rows.get(key);
    if (row === undefined) {
      // apply's INSERT: id and position are both the first charge's position.
      rows.set(key, [
        event.position,
        charge.userId,
        charge.username,
        charge.modelName,
        charge.hour,
        1,
        charge.quota,
        charge.tokenUsed,
        event.position,
      ]);
    } else if (row[POSITION] < event.position) {
      // apply's ON CONFLICT … DO UPDATE SET count = q.count + 1, quota = q.quota + $6, token_used = q.token_used + $7,
      // position = $1 WHERE q.position < $1.
      row[COUNT] += 1;
      row[QUOTA] += charge.quota;
      row[TOKEN_USED] += charge.tokenUsed;
      row[POSITION] = event.position;
    }
  }

  /** The rows of every hour the ledger's clock is QUOTA_DATA_HOURS_HELD hours past. */
  drain(): BulkRows[] {
    const below = this.ledgerHour - QUOTA_DATA_HOURS_HELD * 3600;
    if (!(below > this.writtenBelow)) return [];
    this.writtenBelow = below;
    const rows: unknown[][] = [];
    for (const [hour, held] of this.hours) {
      if (hour >= below) continue;
      for (const row of held.values()) rows.push(row);
      this.hours.delete(hour);
    }
    return rows.length ? [{ table: 'quota_data', columns: COLUMNS, rows }] : [];
  }

  /** Every row still held. */
  finish(): BulkRows[] {
    const rows: unknown[][] = [];
    for (const held of this.hours.values()) for (const row of held.values()) rows.push(row);
    this.hours.clear();
    return [{ table: 'quota_data', columns: COLUMNS, rows }];
  }

  /** The late charges, added to the rows written by the projection's batch upsert. */
  finishBarrier(): BulkBarrier | null {
    if (this.late.length === 0) return null;
    const late = this.late;
    this.late = [];
    return (manager) => this.applyLate(late, manager);
  }
}
