import type { QuotaConsumedData } from '#server/modules/accounts/index';
import { quotaConsumedEndReason, quotaConsumedUsageSource } from '#server/modules/accounts/quota-consumed-event-codec';
import { chargedQuota } from '../account-balances/quota-consumed-fold';
import { consumeContent } from './consume-log-wording';
import { LogType } from './log.entity';
import { sortedJson } from '#server/common/json/sorted-json';

/** The columns of a type 2 (consume) log row, as the logs projection inserts them. */
export interface ConsumeLogRow {
  userId: number;
  createdAt: number;
  type: number;
  content: string;
  username: string;
  tokenName: string;
  modelName: string;
  quota: number;
  promptTokens: number;
  completionTokens: number;
  useTime: number;
  isStream: boolean;
  channelId: number;
  tokenId: number;
  group: string;
  other: string;
}

/** Column widths of `logs` (1732300001100-create-logs): a longer value is cut rather than failing the projection. */
const WIDTH = { username: 64, tokenName: 128, modelName: 256, group: 64 } as const;
const INT4_MAX = 2_147_483_647;

/** Text as Postgres can hold it: no NUL, at most `width` characters (code points). */
function text(value: unknown, width?: number): string {
  if (typeof value !== 'string') return '';
  const clean = value.includes('\u0000') ? value.replace(/\u0000/g, '') : value;
  // At most `width` UTF-16 units is at most `width` code points: nothing to cut, no array of characters.
  if (width === undefined || clean.length <= width) return clean;
  const chars = [...clean];
  return chars.length > width ? chars.slice(0, width).join('') : clean;
}

/** A count for an `integer` column: a non-negative whole number within int4; anything else reads as 0. */
function count(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return 0;
  return Math.min(Math.floor(value), INT4_MAX);
}

function ratio(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/**
 * The row's `other` JSON, new-api's keys: model_ratio, group_ratio, completion_ratio, model_price (-1
 * when the model has no fixed price), frt (ms to the first streamed byte; -1000 for a non-stream request, as
 * new-api writes it and the console expects), cache_tokens, admin_info.use_channel (every channel tried, as
 * strings). The relay's extra keys (`other`) are kept; the computed keys win over them. When the request was
 * model-mapped, `is_model_mapped` and `upstream_model_name` say so (the keys of later new-api versions).
 * `usage_source` (upstream | estimated) and `end_reason` (completed | client_gone | upstream_error | timeout |
 * cut_stream) are the event's own, and only when it records them (events written before carry neither).
 */
export function consumeLogOther(data: Partial<QuotaConsumedData>): string {
  const extra = data.other && typeof data.other === 'object' && !Array.isArray(data.other) ? data.other : {};
  const extraAdmin = extra.admin_info && typeof extra.admin_info === 'object' && !Array.isArray(extra.admin_info) ? extra.admin_info : {};
  const path = Array.isArray(data.channelPath) ? data.channelPath : typeof data.channelId === 'number' ? [data.channelId] : [];
  const upstream = text(data.upstreamModel);
  const mapped = upstream !== '' && upstream !== data.modelName;
  const record = data as Record<string, unknown>;
  const usageSource = quotaConsumedUsageSource(record);
  const endReason = quotaConsumedEndReason(record);
  const modelRatio = ratio(data.modelRatio, 0);
  const groupRatio = ratio(data.groupRatio, 1);
  const completionRatio = ratio(data.completionRatio, 1);
  const modelPrice = ratio(data.modelPrice, -1);
  const frt = data.isStream === true ? ratio(data.firstTokenMs, 0) : -1000;
  const cacheTokens = count(data.cachedTokens);
  if (Object.keys(extra).length === 0 && Object.keys(extraAdmin).length === 0) {
    // No relay extras (nearly every charge): sortedJson's text of the object below, written out with its keys in
    // sorted order, without the object, its copies and the sort (spec: consume-log-row.spec.ts compares the two).
    let channels = '';
    for (let i = 0; i < path.length; i++) channels += (i === 0 ? '' : ',') + JSON.stringify(String(path[i]));
    return (
      `{"admin_info":{"use_channel":[${channels}]},"cache_tokens":${JSON.stringify(cacheTokens)},` +
      `"completion_ratio":${JSON.stringify(completionRatio)},` +
      (endReason === undefined ? '' : `"end_reason":${JSON.stringify(endReason)},`) +
      `"frt":${JSON.stringify(frt)},"group_ratio":${JSON.stringify(groupRatio)},` +
      (mapped ? '"is_model_mapped":true,' : '') +
      `"model_price":${JSON.stringify(modelPrice)},"model_ratio":${JSON.stringify(modelRatio)}` +
      (mapped ? `,"upstream_model_name":${JSON.stringify(upstream)}` : '') +
      (usageSource === undefined ? '' : `,"usage_source":${JSON.stringify(usageSource)}`) +
      '}'
    );
  }
  const other: Record<string, unknown> = {
    ...extra,
    model_ratio: modelRatio,
    group_ratio: groupRatio,
    completion_ratio: completionRatio,
    model_price: modelPrice,
    frt,
    cache_tokens: cacheTokens,
    admin_info: { ...(extraAdmin as Record<string, unknown>), use_channel: path.map((id) => String(id)) },
  };
  if (mapped) {
    other.is_model_mapped = true;
    other.upstream_model_name = upstream;
  }
  if (usageSource !== undefined) other.usage_source = usageSource;
  if (endReason !== undefined) other.end_reason = endReason;
  return sortedJson(other);
}

/**
 * The row's human line, worded as new-api's: the event's own `content` when it has one (an image generation's
 * size and quality; every event written before the wording moved here), else derived from its prices and counts
 * exactly as the relay wrote it before: "模型倍率 0.07，补全倍率 4.00，分组倍率 1.00", or "模型价格 …" for a model with
 * a fixed price, with "（可能是上游超时）" when no token was counted.
 */
export function consumeLogContent(data: Partial<QuotaConsumedData>): string {
  if (typeof data.content === 'string') return text(data.content);
  return consumeContent(
    {
      modelPrice: ratio(data.modelPrice, -1),
      modelRatio: ratio(data.modelRatio, 0),
      completionRatio: ratio(data.completionRatio, 1),
      groupRatio: ratio(data.groupRatio, 1),
    },
    { promptTokens: count(data.promptTokens), completionTokens: count(data.completionTokens) },
    false,
  );
}

/**
 * The type 2 (consume) row of one QuotaConsumed, new-api's log columns. Everything comes from the event (the
 * username recorded when it happened, the admission time as `created_at`, falling back to the ledger time), so a
 * replay writes the same row. The logged model is the one the client asked for (the choice of later new-api
 * versions; v0.3 logged the mapped name), with the upstream name in `other` when they differ.
 */
export function consumeLogRow(userId: number, data: Partial<QuotaConsumedData>, ledgerTime: Date): ConsumeLogRow {
  return consumeLogColumns(userId, data, ledgerTime, consumeLogContent(data), consumeLogOther(data));
}

/**
 * consumeLogRow's columns with the texts given: the wording and `other` it would build, or whatever the caller stores
 * in their place (the logs projection: NULL when the columns give them back, consume-log-columns.ts).
 */
export function consumeLogColumns<Text>(
  userId: number,
  data: Partial<QuotaConsumedData>,
  ledgerTime: Date,
  content: Text,
  other: Text,
): Omit<ConsumeLogRow, 'content' | 'other'> & { content: Text; other: Text } {
  const admitted = data.createdAt;
  const createdAt =
    typeof admitted === 'number' && Number.isSafeInteger(admitted) && admitted > 0 ? admitted : Math.floor(ledgerTime.getTime() / 1000);
  return {
    userId,
    createdAt,
    type: LogType.Consume,
    content,
    username: text(data.username, WIDTH.username),
    tokenName: text(data.tokenName, WIDTH.tokenName),
    modelName: text(data.modelName, WIDTH.modelName),
    quota: chargedQuota(data as Record<string, unknown>),
    promptTokens: count(data.promptTokens),
    completionTokens: count(data.completionTokens),
    useTime: count(data.useTimeSeconds),
    isStream: data.isStream === true,
    channelId: count(data.channelId),
    tokenId: count(data.tokenId),
    group: text(data.group, WIDTH.group),
    other,
  };
}
