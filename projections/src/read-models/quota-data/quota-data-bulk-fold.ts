import type { RecordedEvent } from '#server/ledger/event-store.port';
import type { BulkFold, BulkRows } from '../../runner/bulk-fold';
import { quotaDataChargeOfEvent, quotaDataKey } from './quota-data';

const COLUMNS = ['id', 'user_id', 'username', 'model_name', 'created_at', 'count', 'quota', 'token_used', 'position'] as const;

/** A quota_data row as the fold holds it: its values in COLUMNS order, so `finish` hands the rows over as they are. */
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
 * quota_data rebuilt in memory (bulk-fold.ts): one row per (user, name, model, hour), the projection's biggest
 * table (most of a million charges' rows are still held at the end), so each is one small array keyed by
 * quotaDataKey, built once per charge.
 */
export class QuotaDataBulkFold implements BulkFold {
  private readonly rows = new Map<string, QuotaDataRow>();

  add(event: RecordedEvent): void {
    const charge = quotaDataChargeOfEvent(event);
    if (!charge) return;
    const key = quotaDataKey(charge);
    const row = this.rows.get(key);
    if (row === undefined) {
      // apply's INSERT: id and position are both the first charge's position.
      this.rows.set(key, [
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

  drain(): BulkRows[] {
    return [];
  }

  finish(): BulkRows[] {
    const rows: unknown[][] = Array.from(this.rows.values());
    this.rows.clear();
    return [{ table: 'quota_data', columns: COLUMNS, rows }];
  }
}
