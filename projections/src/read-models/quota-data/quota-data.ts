import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory, streamKey } from '#server/ledger/streams';
import type { QuotaConsumedData } from '#server/modules/accounts/index';
import { QUOTA_CONSUMED } from '#server/modules/accounts/quota-consumed.event';
import { quotaConsumedData } from '#server/modules/accounts/quota-consumed-event-codec';
import { chargedQuota } from '../account-balances/quota-consumed-fold';

/** One charge as the dashboard counts it: its row's key (user, name, model, hour) and what it adds. */
export interface QuotaDataCharge {
  userId: number;
  username: string;
  modelName: string;
  /** Unix seconds of the hour the request was admitted in (UTC). */
  hour: number;
  quota: number;
  /** Prompt + completion tokens. */
  tokenUsed: number;
}

/** Column widths of `quota_data` (the same as the log row's): a longer value is cut rather than failing the projection. */
const WIDTH = { username: 64, modelName: 256 } as const;
const SECONDS_PER_HOUR = 3600;

/** The start of the UTC hour `seconds` falls in, as new-api buckets the dashboard. */
export function hourBucket(seconds: number): number {
  return seconds - (((seconds % SECONDS_PER_HOUR) + SECONDS_PER_HOUR) % SECONDS_PER_HOUR);
}

function text(value: unknown, width: number): string {
  if (typeof value !== 'string') return '';
  const clean = value.includes('\u0000') ? value.replace(/\u0000/g, '') : value;
  // At most `width` UTF-16 units is at most `width` characters: only a longer text is split into characters.
  if (clean.length <= width) return clean;
  const chars = [...clean];
  return chars.length > width ? chars.slice(0, width).join('') : clean;
}

function tokens(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/**
 * What a QuotaConsumed adds to the dashboard, or null when it adds nothing: new-api fed the dashboard from its
 * consume log, so a charge settled while LogConsumeEnabled or DataExportEnabled was off (recorded in the event)
 * counts for neither. The hour is the admission time's (the log row's created_at), else the ledger time's.
 */
export function quotaDataChargeOf(userId: number, data: Partial<QuotaConsumedData>, ledgerTime: Date): QuotaDataCharge | null {
  const quota = chargedQuota(data as Record<string, unknown>);
  if (data.logConsume === false || data.dataExport === false) return null;
  const admitted = data.createdAt;
  const at =
    typeof admitted === 'number' && Number.isSafeInteger(admitted) && admitted > 0 ? admitted : Math.floor(ledgerTime.getTime() / 1000);
  return {
    userId,
    username: text(data.username, WIDTH.username),
    modelName: text(data.modelName, WIDTH.modelName),
    hour: hourBucket(at),
    quota,
    tokenUsed: tokens(data.promptTokens) + tokens(data.completionTokens),
  };
}

/**
 * What a ledger event adds to the dashboard: quotaDataChargeOf for a QuotaConsumed on `account-{userId}`, null for
 * anything else. Every path that folds charges into quota_data (apply, applyBatch, the bulk fold) reads them
 * through this.
 */
export function quotaDataChargeOfEvent(event: RecordedEvent): QuotaDataCharge | null {
  if (event.type !== QUOTA_CONSUMED || streamCategory(event.streamId) !== 'account') return null;
  return quotaDataChargeOf(streamKey(event.streamId), quotaConsumedData(event), event.createdAt);
}

/** The row key of a charge, for folding a batch per row. */
export function quotaDataKey(charge: QuotaDataCharge): string {
  return `${charge.userId}\u0000${charge.username}\u0000${charge.modelName}\u0000${charge.hour}`;
}
