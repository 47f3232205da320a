import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory, topUpStream } from '#server/ledger/streams';
import { toTopUpEvent } from '#server/modules/topups/topup-event-codec';
import type { BulkFold, BulkRows } from '../../runner/bulk-fold';
import { TOPUP_ORDER_COLUMNS, type TopUpOrderRow, topUpOrderOnConflict, topUpOrderRowAfter } from './topup-order-row';

const TOPUP_ORDER_PREFIX = topUpStream('');

/**
 * topup_orders rebuilt in memory (bulk-fold.ts): one row per trade number, folded by topUpOrderRowAfter as apply
 * folds it, and written onto an existing trade number as apply's ON CONFLICT writes it (topUpOrderOnConflict).
 */
export class TopUpOrdersBulkFold implements BulkFold {
  private readonly rows = new Map<string, TopUpOrderRow>();

  add(event: RecordedEvent): void {
    if (streamCategory(event.streamId) !== 'topup') return;
    const decoded = toTopUpEvent(event);
    const written = topUpOrderRowAfter(this.rows.get(event.streamId.slice(TOPUP_ORDER_PREFIX.length)), decoded, event);
    if (!written) return;
    const stored = this.rows.get(written.trade_no);
    this.rows.set(written.trade_no, stored ? topUpOrderOnConflict(stored, written) : written);
  }

  drain(): BulkRows[] {
    return [];
  }

  finish(): BulkRows[] {
    const rows: unknown[][] = [];
    for (const row of this.rows.values()) rows.push(TOPUP_ORDER_COLUMNS.map((column) => row[column]));
    this.rows.clear();
    return [{ table: 'topup_orders', columns: TOPUP_ORDER_COLUMNS, rows }];
  }
}
