import type { RecordedEvent } from '#server/ledger/event-store.port';
import { quotaConsumedRecord } from '#server/modules/accounts/quota-consumed-event-codec';
import { type ChannelEvent, ChannelStatus } from '#server/modules/channels/channel.events';

/** The projected figures of one channel. */
export interface ChannelStatusFigures {
  status: number;
  responseTime: number;
  testTime: number;
  balance: number;
  balanceUpdatedTime: number;
  usedQuota: number;
  statusReason: string | null;
  statusTime: number | null;
}

export const emptyChannelStatus: ChannelStatusFigures = Object.freeze({
  status: ChannelStatus.Enabled,
  responseTime: 0,
  testTime: 0,
  balance: 0,
  balanceUpdatedTime: 0,
  usedQuota: 0,
  statusReason: null,
  statusTime: null,
});

/**
 * Pure: a channel event folded into the figures, `at` being the event's time (unix seconds). Automatic decisions
 * record their reason and time (new-api's other_info.status_reason / status_time); an admin's switch does
 * not, as in new-api, so the tooltip of an auto-disabled channel keeps explaining the last automatic decision.
 */
export function applyChannelEvent(figures: ChannelStatusFigures, event: ChannelEvent, at: number): ChannelStatusFigures {
  switch (event.type) {
    case 'ChannelEnabled':
      return { ...figures, status: ChannelStatus.Enabled };
    case 'ChannelDisabled':
      return { ...figures, status: ChannelStatus.ManuallyDisabled };
    case 'ChannelAutoDisabled':
      return { ...figures, status: ChannelStatus.AutoDisabled, statusReason: event.data.message, statusTime: at };
    case 'ChannelAutoEnabled':
      return { ...figures, status: ChannelStatus.Enabled, statusReason: event.data.message, statusTime: at };
    case 'ChannelTested':
      return { ...figures, responseTime: event.data.responseTimeMs, testTime: at };
    case 'ChannelBalanceUpdated':
      return { ...figures, balance: event.data.balance, balanceUpdatedTime: at };
  }
}

/** A relay charge answered by this channel (QuotaConsumed.channelId). */
export function applyChannelUsage(figures: ChannelStatusFigures, quota: number): ChannelStatusFigures {
  return { ...figures, usedQuota: figures.usedQuota + quota };
}

/** What a relay charge adds to its channel's row. */
export interface ChannelUsage {
  channelId: number;
  quota: number;
}

/**
 * The channel a QuotaConsumed charges and its amount, or null when it names no channel (nothing to fold); throws
 * when the quota is not a safe integer. Every path that folds charges into channel_status (apply, applyBatch, the
 * bulk fold) reads them through this.
 */
export function channelUsageOf(event: RecordedEvent): ChannelUsage | null {
  const data = quotaConsumedRecord(event);
  const channelId = data.channelId;
  const quota = data.quota;
  if (typeof channelId !== 'number' || !Number.isSafeInteger(channelId) || channelId <= 0) return null;
  if (typeof quota !== 'number' || !Number.isSafeInteger(quota)) {
    throw new Error(`QuotaConsumed.quota is not a safe integer: ${JSON.stringify(quota)}`);
  }
  return { channelId, quota };
}

/** new-api's `other_info` text: JSON with status_reason and status_time, '' while no decision was recorded. */
export function otherInfoOf(figures: Pick<ChannelStatusFigures, 'statusReason' | 'statusTime'>): string {
  if (figures.statusReason === null && figures.statusTime === null) return '';
  return JSON.stringify({ status_reason: figures.statusReason ?? '', status_time: figures.statusTime ?? 0 });
}
