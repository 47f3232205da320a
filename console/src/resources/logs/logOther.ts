/** Reading a log row's `other` JSON text (new-api's keys) and the price breakdown of a consumption row. */

export interface LogOther {
  model_ratio?: number;
  group_ratio?: number;
  completion_ratio?: number;
  /** -1 (or absent) when the model is billed by ratio. */
  model_price?: number;
  /** Milliseconds to the first token; -1000 for a non-stream request. */
  frt?: number;
  cache_tokens?: number;
  is_model_mapped?: boolean;
  upstream_model_name?: string;
  admin_info?: { use_channel?: unknown };
}

/** The parsed object, or null for an empty text, `"null"` or anything that is not a JSON object. */
export const parseLogOther = (text: string | null | undefined): LogOther | null => {
  if (!text) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as LogOther) : null;
  } catch {
    return null;
  }
};

/** The channels tried, in order (admins only: `admin_info.use_channel`); the row's channel when there is no list. */
export const channelPath = (other: LogOther | null, channel: number): string[] => {
  const used = other?.admin_info?.use_channel;
  if (Array.isArray(used) && used.length > 0) return used.map((id) => String(id));
  return channel ? [String(channel)] : [];
};

const finite = (value: unknown, fallback: number): number => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);

/** A number without float noise (0.15000000000000002 → 0.15), at most 6 decimals. */
export const plain = (value: number): string => String(Number(value.toFixed(6)));

export type PriceBreakdown =
  | {
      kind: 'price';
      modelPrice: number;
      groupRatio: number;
      /** USD: price × group ratio. */
      total: number;
    }
  | {
      kind: 'ratio';
      modelRatio: number;
      completionRatio: number;
      groupRatio: number;
      /** USD per 1M prompt tokens before the group ratio: model ratio × 2. */
      promptPrice: number;
      /** USD per 1M completion tokens before the group ratio: model ratio × 2 × completion ratio. */
      completionPrice: number;
      promptTokens: number;
      completionTokens: number;
      /** USD: (prompt / 1M × prompt price + completion / 1M × completion price) × group ratio. */
      total: number;
    };

/**
 * new-api's renderModelPrice: a fixed-price model costs price × group ratio per call; otherwise one model-ratio unit
 * is $2 per 1M tokens, completions weigh the completion ratio, and the group ratio multiplies both.
 */
export const priceBreakdown = (other: LogOther, promptTokens: number, completionTokens: number): PriceBreakdown => {
  const groupRatio = finite(other.group_ratio, 1);
  const modelPrice = finite(other.model_price, -1);
  if (modelPrice !== -1) return { kind: 'price', modelPrice, groupRatio, total: modelPrice * groupRatio };
  const modelRatio = finite(other.model_ratio, 0);
  const completionRatio = finite(other.completion_ratio, 0);
  const promptPrice = modelRatio * 2;
  const completionPrice = modelRatio * 2 * completionRatio;
  const total = ((promptTokens / 1e6) * promptPrice + (completionTokens / 1e6) * completionPrice) * groupRatio;
  return { kind: 'ratio', modelRatio, completionRatio, groupRatio, promptPrice, completionPrice, promptTokens, completionTokens, total };
};

/** Log types: 1 top-up, 2 consumption, 3 admin, 4 system (0 is the "all" of the filter, and old consumption rows). */
export const LOG_TYPES = [1, 2, 3, 4] as const;

/** Token, model, time, prompt, completion and cost belong to consumption rows only (types 0 and 2). */
export const isConsumption = (type: number): boolean => type === 0 || type === 2;

/** new-api's latency colours: use time under 101 s green, under 300 s orange, else red. */
export const useTimeColour = (seconds: number): 'success' | 'warning' | 'error' =>
  seconds < 101 ? 'success' : seconds < 300 ? 'warning' : 'error';

/** First token under 3 s green, under 10 s orange, else red. */
export const firstTokenColour = (seconds: number): 'success' | 'warning' | 'error' =>
  seconds < 3 ? 'success' : seconds < 10 ? 'warning' : 'error';
