import type { RecordedEvent } from '#server/ledger/event-store.port';
import { accountStream, channelStream, streamKey } from '#server/ledger/streams';
import { QUOTA_CONSUMED } from '#server/modules/accounts/quota-consumed.event';
import { toChannelEvent } from '#server/modules/channels/channel-event-codec';
import type { BulkBarrier, BulkFold, BulkRows } from '../../runner/bulk-fold';
import { applyChannelEvent, applyChannelUsage, type ChannelStatusFigures, channelUsageOf, emptyChannelStatus } from './channel-status-fold';
import { CHANNEL_STATUS_EVENTS, notifyChannelStatus } from './channel-status-notify';

const COLUMNS = [
  'channel_id',
  'status',
  'response_time',
  'test_time',
  'balance',
  'balance_updated_time',
  'used_quota',
  'status_reason',
  'status_time',
  'position',
] as const;

// streamCategory(id) === 'account' / 'channel', without slicing the stream id of every charge.
const ACCOUNT_PREFIX = accountStream(0).slice(0, -1);
const CHANNEL_PREFIX = channelStream(0).slice(0, -1);

/** A channel's row while folding: its figures and the position of the last event folded into it. */
interface ChannelRow {
  figures: ChannelStatusFigures;
  position: number;
}

/**
 * channel_status rebuilt in memory (bulk-fold.ts): one row per channel, through the same pure folds as `apply`
 * (applyChannelEvent, applyChannelUsage, channelUsageOf). A few hundred channels at most: every row is held until
 * `finish`.
 */
export class ChannelStatusBulkFold implements BulkFold {
  private readonly channels = new Map<number, ChannelRow>();
  private notified = false;

  /**
   * apply's NOTIFY of a status change, once per load: sent in the load's transaction before its first status event,
   * so delivered when the load commits its rows, and routers reload their whole snapshot whatever it names.
   */
  barrierBefore(event: RecordedEvent): BulkBarrier | null {
    if (this.notified || !CHANNEL_STATUS_EVENTS.has(event.type) || !event.streamId.startsWith(CHANNEL_PREFIX)) return null;
    this.notified = true;
    const channelId = streamKey(event.streamId);
    return (manager) => notifyChannelStatus(manager, channelId);
  }

  add(event: RecordedEvent): void {
    if (event.type === QUOTA_CONSUMED) {
      if (event.streamId.startsWith(ACCOUNT_PREFIX)) this.addUsage(event);
    } else if (event.streamId.startsWith(CHANNEL_PREFIX)) {
      this.addChannelEvent(event);
    }
  }

  drain(): BulkRows[] {
    return [];
  }

  finish(): BulkRows[] {
    const rows: unknown[][] = [];
    for (const [channelId, { figures, position }] of this.channels) {
      rows.push([
        channelId,
        figures.status,
        figures.responseTime,
        figures.testTime,
        figures.balance,
        figures.balanceUpdatedTime,
        figures.usedQuota,
        figures.statusReason,
        figures.statusTime,
        position,
      ]);
    }
    this.channels.clear();
    return [{ table: 'channel_status', columns: COLUMNS, rows }];
  }

  /**
   * The projection's addUsage: a new row starts from emptyChannelStatus; an existing one counts the charge only when
   * its position is ahead (its `ON CONFLICT … DO UPDATE SET used_quota = c.used_quota + $11 … WHERE c.position < $10`).
   */
  private addUsage(event: RecordedEvent): void {
    const usage = channelUsageOf(event);
    if (!usage) return;
    const row = this.channels.get(usage.channelId);
    if (!row) {
      this.channels.set(usage.channelId, { figures: applyChannelUsage(emptyChannelStatus, usage.quota), position: event.position });
    } else if (row.position < event.position) {
      // applyChannelUsage, in place: the row's figures are the fold's own copy (never the frozen empty one), and the
      // hottest path of the fold need not copy them per charge.
      row.figures.usedQuota += usage.quota;
      row.position = event.position;
    }
  }

  /** The projection's update(): skipped when the row's position is not behind the event's, else the whole row rewritten. */
  private addChannelEvent(event: RecordedEvent): void {
    const channelId = streamKey(event.streamId);
    const channelEvent = toChannelEvent(event);
    const row = this.channels.get(channelId);
    if (row && row.position >= event.position) return;
    const figures = applyChannelEvent(row ? row.figures : emptyChannelStatus, channelEvent, Math.floor(event.createdAt.getTime() / 1000));
    if (row) {
      row.figures = figures;
      row.position = event.position;
    } else {
      this.channels.set(channelId, { figures, position: event.position });
    }
  }
}
