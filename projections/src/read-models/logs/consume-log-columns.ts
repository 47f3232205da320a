import { sortedJson } from '#server/common/json/sorted-json';
import type { QuotaConsumedData } from '#server/modules/accounts/index';
import { quotaConsumedEndReason, quotaConsumedUsageSource } from '#server/modules/accounts/quota-consumed-event-codec';
import { consumeContent } from './consume-log-wording';

/**
 * A consume row's `content` wording and `other` JSON repeat the charge's ratios and counts. The row keeps those as
 * columns (model_ratio, completion_ratio, group_ratio, model_price, frt, cache_tokens, usage_source, end_reason)
 * and stores `content` / `other` as NULL when the text derived from its own columns is exactly the text it would
 * have stored; the log API derives them back (log.serializer.ts). Exact by construction: the projection compares
 * the derived text with the text consumeLogRow built and keeps the text whenever they differ (an image's size and
 * quality, relay extra keys, a retried request's channel path, a mapped model, a value this list does not know).
 */

/** Codes of the usage sources and end reasons stored in smallint columns. Append only: a code never changes meaning. */
export const USAGE_SOURCE_CODES = ['upstream', 'estimated'] as const;
export const END_REASON_CODES = ['completed', 'client_gone', 'upstream_error', 'timeout', 'cut_stream'] as const;

/** The facts a consume row's wording and `other` are made of (all null for rows that are not consume rows). */
export interface ConsumeFacts {
  modelRatio: number | null;
  completionRatio: number | null;
  groupRatio: number | null;
  modelPrice: number | null;
  frt: number | null;
  cacheTokens: number | null;
  usageSource: number | null;
  endReason: number | null;
}

export const NO_FACTS: ConsumeFacts = {
  modelRatio: null,
  completionRatio: null,
  groupRatio: null,
  modelPrice: null,
  frt: null,
  cacheTokens: null,
  usageSource: null,
  endReason: null,
};

const INT4_MAX = 2_147_483_647;
const ratio = (value: unknown, fallback: number) => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);
const count = (value: unknown) =>
  typeof value !== 'number' || !Number.isFinite(value) || value < 0 ? 0 : Math.min(Math.floor(value), INT4_MAX);
const code = (list: readonly string[], value: string | undefined) => (value === undefined ? null : list.indexOf(value));

/** The facts of a charge (or a channel test's would-be charge), with consumeLogRow's fallbacks. */
export function consumeFactsOf(data: Partial<QuotaConsumedData>): ConsumeFacts {
  const record = data as Record<string, unknown>;
  return {
    modelRatio: ratio(data.modelRatio, 0),
    completionRatio: ratio(data.completionRatio, 1),
    groupRatio: ratio(data.groupRatio, 1),
    modelPrice: ratio(data.modelPrice, -1),
    frt: data.isStream === true ? ratio(data.firstTokenMs, 0) : -1000,
    cacheTokens: count(data.cachedTokens),
    // -1: a value the code list does not know; the derived `other` then lacks it and the text is kept.
    usageSource: code(USAGE_SOURCE_CODES, quotaConsumedUsageSource(record)),
    endReason: code(END_REASON_CODES, quotaConsumedEndReason(record)),
  };
}

const complete = (facts: ConsumeFacts) =>
  facts.modelRatio !== null && facts.completionRatio !== null && facts.groupRatio !== null && facts.modelPrice !== null;

/** The wording derived from the columns, or null when the row has no facts. */
export function derivedConsumeContent(facts: ConsumeFacts, promptTokens: number, completionTokens: number): string | null {
  if (!complete(facts)) return null;
  return consumeContent(
    {
      modelPrice: facts.modelPrice!,
      modelRatio: facts.modelRatio!,
      completionRatio: facts.completionRatio!,
      groupRatio: facts.groupRatio!,
    },
    { promptTokens, completionTokens },
    false,
  );
}

/**
 * The `other` JSON derived from the columns (consumeLogOther's keys for a charge answered by its only channel, with
 * no relay extras and no model mapping), or null when the row has no facts.
 */
export function derivedConsumeOther(facts: ConsumeFacts, channelId: number): string | null {
  if (!complete(facts) || facts.frt === null || facts.cacheTokens === null) return null;
  const usage = facts.usageSource === null ? undefined : USAGE_SOURCE_CODES[facts.usageSource];
  const end = facts.endReason === null ? undefined : END_REASON_CODES[facts.endReason];
  // sortedJson's output, written out (keys in sorted order; JSON.stringify of a finite number is String(number),
  // and the channel id and the codes need no escaping): the same text at a fraction of the cost, per row.
  return (
    `{"admin_info":{"use_channel":["${channelId}"]},"cache_tokens":${facts.cacheTokens},` +
    `"completion_ratio":${JSON.stringify(facts.completionRatio)},${end === undefined ? '' : `"end_reason":"${end}",`}` +
    `"frt":${JSON.stringify(facts.frt)},"group_ratio":${JSON.stringify(facts.groupRatio)},` +
    `"model_price":${JSON.stringify(facts.modelPrice)},"model_ratio":${JSON.stringify(facts.modelRatio)}` +
    `${usage === undefined ? '' : `,"usage_source":"${usage}"`}}`
  );
}

/** derivedConsumeOther through sortedJson, the yardstick its written-out form is checked against (spec). */
export function derivedConsumeOtherSorted(facts: ConsumeFacts, channelId: number): string | null {
  if (!complete(facts) || facts.frt === null || facts.cacheTokens === null) return null;
  const other: Record<string, unknown> = {
    model_ratio: facts.modelRatio,
    group_ratio: facts.groupRatio,
    completion_ratio: facts.completionRatio,
    model_price: facts.modelPrice,
    frt: facts.frt,
    cache_tokens: facts.cacheTokens,
    admin_info: { use_channel: [String(channelId)] },
  };
  const usage = facts.usageSource === null ? undefined : USAGE_SOURCE_CODES[facts.usageSource];
  if (usage !== undefined) other.usage_source = usage;
  const end = facts.endReason === null ? undefined : END_REASON_CODES[facts.endReason];
  if (end !== undefined) other.end_reason = end;
  return sortedJson(other);
}

/** What the row stores: NULL for each text its columns give back exactly; no facts when neither does. */
export function storedConsumeText(
  row: { content: string; other: string; promptTokens: number; completionTokens: number; channelId: number },
  facts: ConsumeFacts,
): { content: string | null; other: string | null; facts: ConsumeFacts } {
  const known = {
    ...facts,
    usageSource: facts.usageSource === -1 ? null : facts.usageSource,
    endReason: facts.endReason === -1 ? null : facts.endReason,
  };
  const contentDerived = derivedConsumeContent(known, row.promptTokens, row.completionTokens) === row.content;
  const otherDerived = derivedConsumeOther(known, row.channelId) === row.other;
  if (!contentDerived && !otherDerived) return { content: row.content, other: row.other, facts: NO_FACTS };
  return { content: contentDerived ? null : row.content, other: otherDerived ? null : row.other, facts: known };
}
