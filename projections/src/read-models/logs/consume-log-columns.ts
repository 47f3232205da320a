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
 *
 * A column holding consumeLogRow's fallback value is NULL too (DEFAULTS: completion and group ratio 1, no fixed
 * price -1, frt -1000 for a request not streamed, no cached tokens 0): a NULL float8 or integer takes no room in the
 * row, so a typical charge's row is 8 to 24 bytes shorter. model_ratio is never NULL on a row with facts (it is
 * what says the row has them), so a NULL in one of those columns of such a row reads back as the fallback. Rows
 * written before stored the values themselves; they read the same.
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

/** The value a NULL column of a row with facts (model_ratio not NULL) stands for: consumeLogRow's fallback. */
const DEFAULTS = { completionRatio: 1, groupRatio: 1, modelPrice: -1, frt: -1000, cacheTokens: 0 } as const;

const nullIf = (value: number | null, fallback: number) => (Object.is(value, fallback) ? null : value);

/** The facts as the row stores them: each column that holds its fallback (DEFAULTS) as NULL. */
export function storedFacts(facts: ConsumeFacts): ConsumeFacts {
  if (facts.modelRatio === null) return facts;
  return {
    ...facts,
    completionRatio: nullIf(facts.completionRatio, DEFAULTS.completionRatio),
    groupRatio: nullIf(facts.groupRatio, DEFAULTS.groupRatio),
    modelPrice: nullIf(facts.modelPrice, DEFAULTS.modelPrice),
    frt: nullIf(facts.frt, DEFAULTS.frt),
    cacheTokens: nullIf(facts.cacheTokens, DEFAULTS.cacheTokens),
  };
}

/** The numbers of a row with facts, each NULL column read as its fallback. */
interface RowNumbers {
  modelRatio: number;
  completionRatio: number;
  groupRatio: number;
  modelPrice: number;
  frt: number;
  cacheTokens: number;
}

/** The numbers of a row with facts (NULL columns read as DEFAULTS); null for a row without facts. */
function numbersOf(facts: ConsumeFacts): RowNumbers | null {
  if (facts.modelRatio === null) return null;
  return {
    modelRatio: facts.modelRatio,
    completionRatio: facts.completionRatio ?? DEFAULTS.completionRatio,
    groupRatio: facts.groupRatio ?? DEFAULTS.groupRatio,
    modelPrice: facts.modelPrice ?? DEFAULTS.modelPrice,
    frt: facts.frt ?? DEFAULTS.frt,
    cacheTokens: facts.cacheTokens ?? DEFAULTS.cacheTokens,
  };
}

/** The wording derived from the columns, or null when the row has no facts. */
export function derivedConsumeContent(stored: ConsumeFacts, promptTokens: number, completionTokens: number): string | null {
  const facts = numbersOf(stored);
  if (facts === null) return null;
  return consumeContent(
    {
      modelPrice: facts.modelPrice,
      modelRatio: facts.modelRatio,
      completionRatio: facts.completionRatio,
      groupRatio: facts.groupRatio,
    },
    { promptTokens, completionTokens },
    false,
  );
}

/**
 * The `other` JSON derived from the columns (consumeLogOther's keys for a charge answered by its only channel, with
 * no relay extras and no model mapping), or null when the row has no facts.
 */
export function derivedConsumeOther(stored: ConsumeFacts, channelId: number): string | null {
  const facts = numbersOf(stored);
  if (facts === null) return null;
  const usage = stored.usageSource === null ? undefined : USAGE_SOURCE_CODES[stored.usageSource];
  const end = stored.endReason === null ? undefined : END_REASON_CODES[stored.endReason];
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
export function derivedConsumeOtherSorted(stored: ConsumeFacts, channelId: number): string | null {
  const facts = numbersOf(stored);
  if (facts === null) return null;
  const other: Record<string, unknown> = {
    model_ratio: facts.modelRatio,
    group_ratio: facts.groupRatio,
    completion_ratio: facts.completionRatio,
    model_price: facts.modelPrice,
    frt: facts.frt,
    cache_tokens: facts.cacheTokens,
    admin_info: { use_channel: [String(channelId)] },
  };
  const usage = stored.usageSource === null ? undefined : USAGE_SOURCE_CODES[stored.usageSource];
  if (usage !== undefined) other.usage_source = usage;
  const end = stored.endReason === null ? undefined : END_REASON_CODES[stored.endReason];
  if (end !== undefined) other.end_reason = end;
  return sortedJson(other);
}

/**
 * What the row stores: NULL for each text its columns give back exactly, and its columns as storedFacts writes them
 * (the texts are derived from those, so what the API derives is what was checked here); no facts when neither text
 * derives.
 */
export function storedConsumeText(
  row: { content: string; other: string; promptTokens: number; completionTokens: number; channelId: number },
  facts: ConsumeFacts,
): { content: string | null; other: string | null; facts: ConsumeFacts } {
  const known = storedFacts({
    ...facts,
    usageSource: facts.usageSource === -1 ? null : facts.usageSource,
    endReason: facts.endReason === -1 ? null : facts.endReason,
  });
  const contentDerived = derivedConsumeContent(known, row.promptTokens, row.completionTokens) === row.content;
  const otherDerived = derivedConsumeOther(known, row.channelId) === row.other;
  if (!contentDerived && !otherDerived) return { content: row.content, other: row.other, facts: NO_FACTS };
  return { content: contentDerived ? null : row.content, other: otherDerived ? null : row.other, facts: known };
}

const INT4 = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= INT4_MAX;

/**
 * Whether both texts of a charge derive back from its columns, decided from the charge alone: no wording of its own,
 * no relay extras in `other`, no model mapping, answered by its only channel (a whole id within int4, or a path of
 * exactly that id), and a usage source and end reason the code lists know (or none). That is nearly every charge;
 * for it storedConsumeText would build both texts, derive both back, find them equal and store NULL for each, so
 * the logs projection skips the texts altogether. Conservative: a charge it says no to goes through
 * storedConsumeText, which keeps whatever does not derive (spec: both ways give the same row for every edge).
 */
export function chargeTextsDerive(data: Partial<QuotaConsumedData>, facts: ConsumeFacts): boolean {
  if (typeof data.content === 'string' || facts.usageSource === -1 || facts.endReason === -1) return false;
  const extra: unknown = data.other;
  if (extra !== undefined && extra !== null && typeof extra === 'object' && (Array.isArray(extra) || Object.keys(extra).length > 0)) {
    return false;
  }
  const upstream: unknown = data.upstreamModel;
  if (typeof upstream === 'string' && upstream !== '' && upstream !== data.modelName) return false;
  const channelId: unknown = data.channelId;
  if (!INT4(channelId)) return false;
  const path: unknown = data.channelPath;
  return path === undefined || (Array.isArray(path) && path.length === 1 && path[0] === channelId);
}
