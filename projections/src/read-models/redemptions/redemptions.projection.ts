import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory, streamKey } from '#server/ledger/streams';
import { RedemptionEventType } from '#server/modules/redemptions/redemption.events';
import type { BulkFold } from '../../runner/bulk-fold';
import type { Projection } from '../../runner/projection';
import { ReadModelProjection } from '../../runner/read-model-projection.decorator';
import { REDEMPTION_COLUMNS, type RedemptionRow, redemptionRowAfter } from './redemption-row';
import { RedemptionsBulkFold } from './redemptions-bulk-fold';

/**
 * `redemptions`: each `redemption-{id}` stream folded with the same `evolve` the command side decides with
 * (redemptionRowAfter). The soft-delete time is the deletion event's own time, so a rebuild writes the row the live
 * projection wrote.
 */
@ReadModelProjection()
export class RedemptionsProjection implements Projection {
  readonly name = 'redemptions';
  readonly tables = ['redemptions'];
  readonly handles = Object.values(RedemptionEventType);

  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    if (streamCategory(event.streamId) !== 'redemption') return;
    const id = streamKey(event.streamId);
    const rows: RedemptionRow[] = await manager.query('SELECT * FROM redemptions WHERE id = $1', [id]);
    const next = redemptionRowAfter(rows[0], id, event);
    if (!next) return;
    await manager.query(
      `INSERT INTO redemptions (id, user_id, key, status, name, quota, created_time, redeemed_time, used_user_id, deleted_at, revision)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (id) DO UPDATE SET user_id = $2, key = $3, status = $4, name = $5, quota = $6, created_time = $7,
         redeemed_time = $8, used_user_id = $9, deleted_at = $10, revision = $11`,
      REDEMPTION_COLUMNS.map((column) => next[column]),
    );
  }

  /** A rebuild from empty tables, folded in memory (redemptions-bulk-fold.ts). */
  bulkFold(): BulkFold {
    return new RedemptionsBulkFold();
  }
}
