import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory, streamKey } from '#server/ledger/streams';
import { ChannelEventType } from '#server/modules/channels/channel.events';
import { toChannelEvent } from '#server/modules/channels/channel-event-codec';
import { QUOTA_CONSUMED } from '#server/modules/accounts/index';
import { advancingPerKey, applyInRuns, decodeEvent } from '../../runner/batch-folds';
import type { Projection } from '../../runner/projection';
import { queryPrepared } from '../../runner/prepared-query';
import { ReadModelProjection } from '../../runner/read-model-projection.decorator';
import type { BulkFold } from '../../runner/bulk-fold';
import { ChannelStatusBulkFold } from './channel-status-bulk-fold';
import {
  applyChannelEvent,
  applyChannelUsage,
  type ChannelStatusFigures,
  type ChannelUsage,
  channelUsageOf,
  emptyChannelStatus,
} from './channel-status-fold';
import { CHANNEL_STATUS_EVENTS, notifyChannelStatus } from './channel-status-notify';

export { CHANNEL_STATUS_NOTIFY_CHANNEL } from './channel-status-notify';

interface StatusRow {
  status: number;
  response_time: number;
  test_time: string;
  balance: number;
  balance_updated_time: string;
  used_quota: string;
  status_reason: string | null;
  status_time: string | null;
  position: string;
}

/** One channel charge of a batch, decoded. */
interface Usage extends ChannelUsage {
  position: number;
}

const isCharge = (event: RecordedEvent) => event.type === QUOTA_CONSUMED;

/**
 * `channel_status`: the `channel-{id}` streams (status, tests, balances) and the relay's QuotaConsumed (the used
 * quota of the channel that answered), in global ledger order. A status change also sends a NOTIFY inside the
 * batch's transaction (delivered at commit, never for a rolled-back batch) so every process's router reloads.
 */
@ReadModelProjection()
export class ChannelStatusProjection implements Projection {
  readonly name = 'channel-status';
  readonly tables = ['channel_status'];
  readonly handles = [...Object.values(ChannelEventType), QUOTA_CONSUMED];

  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    const category = streamCategory(event.streamId);
    const at = Math.floor(event.createdAt.getTime() / 1000);
    if (category === 'channel' && event.type !== QUOTA_CONSUMED) {
      const channelId = streamKey(event.streamId);
      const channelEvent = toChannelEvent(event);
      await this.update(manager, channelId, event, (figures) => applyChannelEvent(figures, channelEvent, at));
      if (CHANNEL_STATUS_EVENTS.has(event.type)) await notifyChannelStatus(manager, channelId);
    } else if (event.type === QUOTA_CONSUMED && category === 'account') {
      const usage = channelUsageOf(event);
      if (usage) await this.addUsage(manager, usage.channelId, usage.quota, event.position);
    }
  }

  /** A rebuild from empty tables, folded in memory (channel-status-bulk-fold.ts). */
  bulkFold(): BulkFold {
    return new ChannelStatusBulkFold();
  }

  /**
   * A batch: each run of consecutive charges in ONE statement, channel events through `apply` in their place (so
   * their NOTIFYs are sent as before).
   */
  async applyBatch(events: readonly RecordedEvent[], manager: EntityManager): Promise<void> {
    await applyInRuns(this, events, manager, isCharge, (run) => this.addUsages(run, manager));
  }

  /**
   * A run of charges in ONE statement, equal to addUsage event by event: per channel, the charges whose position
   * beats the stored one (see advancingPerKey) add their sum to used_quota and store the largest position; a
   * missing row starts from emptyChannelStatus. (UPDATE of the rows present + INSERT of the missing ones in one
   * statement, as AccountBalancesProjection does.)
   */
  private async addUsages(run: readonly RecordedEvent[], manager: EntityManager): Promise<void> {
    const usages: Usage[] = [];
    for (const event of run) {
      if (streamCategory(event.streamId) !== 'account') continue;
      const usage = decodeEvent(event, channelUsageOf);
      if (usage) usages.push({ ...usage, position: event.position });
    }
    const folded = advancingPerKey(
      usages,
      (usage) => usage.channelId,
      (usage) => usage.position,
    );
    if (folded.length === 0) return;
    const empty = emptyChannelStatus;
    await queryPrepared(
      manager,
      `WITH usage AS (
         SELECT * FROM unnest($1::integer[], $2::bigint[], $3::bigint[]) AS u(channel_id, quota, position)
       ), folded AS (
         SELECT u.channel_id, c.channel_id IS NOT NULL AS present, sum(u.quota)::bigint AS quota, max(u.position) AS position
           FROM usage u LEFT JOIN channel_status c ON c.channel_id = u.channel_id
          WHERE c.channel_id IS NULL OR u.position > c.position
          GROUP BY u.channel_id, c.channel_id
       ), updated AS (
         UPDATE channel_status c SET used_quota = c.used_quota + f.quota, position = f.position
           FROM folded f WHERE f.present AND c.channel_id = f.channel_id
       )
       INSERT INTO channel_status (channel_id, status, response_time, test_time, balance, balance_updated_time, used_quota,
                                   status_reason, status_time, position)
       SELECT f.channel_id, $4::integer, $5::integer, $6::bigint, $7::double precision, $8::bigint, $9::bigint + f.quota,
              $10::text, $11::bigint, f.position
         FROM folded f WHERE NOT f.present`,
      [
        folded.map((usage) => usage.channelId),
        folded.map((usage) => usage.quota),
        folded.map((usage) => usage.position),
        empty.status,
        empty.responseTime,
        empty.testTime,
        empty.balance,
        empty.balanceUpdatedTime,
        empty.usedQuota,
        empty.statusReason,
        empty.statusTime,
      ],
    );
  }

  /**
   * A charge (the projection's hot event) in ONE statement instead of a read and a write: used_quota + quota, the
   * same fold as applyChannelUsage, a missing row starting from emptyChannelStatus, guarded by the position like
   * update().
   */
  private async addUsage(manager: EntityManager, channelId: number, quota: number, position: number): Promise<void> {
    const first = applyChannelUsage(emptyChannelStatus, quota);
    await manager.query(
      `INSERT INTO channel_status AS c (channel_id, status, response_time, test_time, balance, balance_updated_time, used_quota,
                                        status_reason, status_time, position)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (channel_id) DO UPDATE SET used_quota = c.used_quota + $11::bigint, position = $10
       WHERE c.position < $10`,
      [
        channelId,
        first.status,
        first.responseTime,
        first.testTime,
        first.balance,
        first.balanceUpdatedTime,
        first.usedQuota,
        first.statusReason,
        first.statusTime,
        position,
        quota,
      ],
    );
  }

  private async update(
    manager: EntityManager,
    channelId: number,
    event: RecordedEvent,
    change: (figures: ChannelStatusFigures) => ChannelStatusFigures,
  ): Promise<void> {
    const rows: StatusRow[] = await manager.query(
      `SELECT status, response_time, test_time, balance, balance_updated_time, used_quota, status_reason, status_time, position
         FROM channel_status WHERE channel_id = $1`,
      [channelId],
    );
    const row = rows[0];
    // The runner applies each event once; this guard only keeps a hand-run replay from counting twice.
    if (row && Number(row.position) >= event.position) return;
    const figures: ChannelStatusFigures = row
      ? {
          status: row.status,
          responseTime: row.response_time,
          testTime: Number(row.test_time),
          balance: Number(row.balance),
          balanceUpdatedTime: Number(row.balance_updated_time),
          usedQuota: Number(row.used_quota),
          statusReason: row.status_reason,
          statusTime: row.status_time === null ? null : Number(row.status_time),
        }
      : emptyChannelStatus;
    const next = change(figures);
    await manager.query(
      `INSERT INTO channel_status (channel_id, status, response_time, test_time, balance, balance_updated_time, used_quota,
                                   status_reason, status_time, position)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (channel_id) DO UPDATE SET status = $2, response_time = $3, test_time = $4, balance = $5,
         balance_updated_time = $6, used_quota = $7, status_reason = $8, status_time = $9, position = $10`,
      [
        channelId,
        next.status,
        next.responseTime,
        next.testTime,
        next.balance,
        next.balanceUpdatedTime,
        next.usedQuota,
        next.statusReason,
        next.statusTime,
        event.position,
      ],
    );
  }
}
