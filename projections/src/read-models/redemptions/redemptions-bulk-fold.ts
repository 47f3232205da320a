import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory, streamKey } from '#server/ledger/streams';
import type { BulkFold, BulkRows } from '../../runner/bulk-fold';
import { REDEMPTION_COLUMNS, type RedemptionRow, redemptionRowAfter } from './redemption-row';

/** redemptions rebuilt in memory (bulk-fold.ts): one row per code, folded by redemptionRowAfter as apply folds it. */
export class RedemptionsBulkFold implements BulkFold {
  private readonly rows = new Map<number, RedemptionRow>();

  add(event: RecordedEvent): void {
    if (streamCategory(event.streamId) !== 'redemption') return;
    const id = streamKey(event.streamId);
    const next = redemptionRowAfter(this.rows.get(id), id, event);
    if (next) this.rows.set(id, next);
  }

  drain(): BulkRows[] {
    return [];
  }

  finish(): BulkRows[] {
    const rows: unknown[][] = [];
    for (const row of this.rows.values()) rows.push(REDEMPTION_COLUMNS.map((column) => row[column]));
    this.rows.clear();
    return [{ table: 'redemptions', columns: REDEMPTION_COLUMNS, rows }];
  }
}
