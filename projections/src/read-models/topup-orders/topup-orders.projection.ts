import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory, topUpStream } from '#server/ledger/streams';
import { TopUpEventType } from '#server/modules/topups/topup.events';
import { toTopUpEvent } from '#server/modules/topups/topup-event-codec';
import type { BulkFold } from '../../runner/bulk-fold';
import type { Projection } from '../../runner/projection';
import { ReadModelProjection } from '../../runner/read-model-projection.decorator';
import { TOPUP_ORDER_COLUMNS, TOPUP_ORDER_CONFLICT_COLUMNS, type TopUpOrderRow, topUpOrderRowAfter } from './topup-order-row';
import { TopUpOrdersBulkFold } from './topup-orders-bulk-fold';

const TOPUP_ORDER_PREFIX = topUpStream('');
const UPSERT = `INSERT INTO topup_orders (${TOPUP_ORDER_COLUMNS.join(', ')})
  VALUES (${TOPUP_ORDER_COLUMNS.map((_, index) => `$${index + 1}`).join(', ')})
  ON CONFLICT (trade_no) DO UPDATE SET ${TOPUP_ORDER_CONFLICT_COLUMNS.map((column) => `${column} = EXCLUDED.${column}`).join(', ')}`;

/**
 * `topup_orders`: each `topup-order-{tradeNo}` stream folded with the same `evolve` the command side decides with.
 * A row's id is its TopUpOrdered's ledger position, so a rebuild writes the rows (and ids) the live projection wrote.
 */
@ReadModelProjection()
export class TopUpOrdersProjection implements Projection {
  readonly name = 'topup-orders';
  readonly tables = ['topup_orders'];
  readonly handles = Object.values(TopUpEventType);

  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    if (streamCategory(event.streamId) !== 'topup') return;
    const decoded = toTopUpEvent(event);
    const tradeNo = event.streamId.slice(TOPUP_ORDER_PREFIX.length);
    const rows: TopUpOrderRow[] = await manager.query('SELECT * FROM topup_orders WHERE trade_no = $1', [tradeNo]);
    const next = topUpOrderRowAfter(rows[0], decoded, event);
    if (!next) return;
    await manager.query(
      UPSERT,
      TOPUP_ORDER_COLUMNS.map((column) => next[column]),
    );
  }

  /** A rebuild from empty tables, folded in memory (topup-orders-bulk-fold.ts). */
  bulkFold(): BulkFold {
    return new TopUpOrdersBulkFold();
  }
}
