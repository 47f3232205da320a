import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory, streamKey } from '#server/ledger/streams';
import { RedemptionEventType, type RedemptionStatusValue } from '#server/modules/redemptions/redemption.events';
import { toRedemptionEvent } from '#server/modules/redemptions/redemption-event-codec';
import { evolve, initialRedemptionState, type RedemptionState } from '#server/modules/redemptions/redemption.state';
import type { Projection } from '../../runner/projection';
import { ReadModelProjection } from '../../runner/read-model-projection.decorator';

interface RedemptionRow {
  id: number;
  user_id: number;
  key: string;
  status: number;
  name: string;
  quota: string;
  created_time: string;
  redeemed_time: string;
  used_user_id: number;
  deleted_at: Date | null;
  revision: number;
}

function stateOf(row: RedemptionRow): RedemptionState {
  return {
    issued: true,
    id: row.id,
    key: row.key,
    name: row.name,
    quota: Number(row.quota),
    creatorId: row.user_id,
    createdTime: Number(row.created_time),
    status: row.status as RedemptionStatusValue,
    usedUserId: row.used_user_id,
    redeemedTime: Number(row.redeemed_time),
    deleted: row.deleted_at !== null,
  };
}

/**
 * `redemptions`: each `redemption-{id}` stream folded with the same `evolve` the command side decides with. The
 * soft-delete time is the deletion event's own time, so a rebuild writes the row the live projection wrote.
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
    const row = rows[0];
    // The runner applies each event once; this guard only keeps a hand-run replay from applying one twice.
    if (row && row.revision >= event.revision) return;
    const next = evolve(row ? stateOf(row) : initialRedemptionState, toRedemptionEvent(event));
    const deletedAt = row?.deleted_at ?? (next.deleted ? event.createdAt : null);
    await manager.query(
      `INSERT INTO redemptions (id, user_id, key, status, name, quota, created_time, redeemed_time, used_user_id, deleted_at, revision)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (id) DO UPDATE SET user_id = $2, key = $3, status = $4, name = $5, quota = $6, created_time = $7,
         redeemed_time = $8, used_user_id = $9, deleted_at = $10, revision = $11`,
      [
        id,
        next.creatorId,
        next.key,
        next.status,
        next.name,
        next.quota,
        next.createdTime,
        next.redeemedTime,
        next.usedUserId,
        deletedAt,
        event.revision,
      ],
    );
  }
}
