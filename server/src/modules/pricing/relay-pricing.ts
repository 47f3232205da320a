/**
 * new-api's pricing (price or model ratio, completion and group ratios; pre-consume and final charge), pure: ratios
 * and prices are passed in from the live options (PricingTables), so the arithmetic is tested without a database.
 */

export interface PricingTables {
  modelRatio: Readonly<Record<string, number>>;
  completionRatio: Readonly<Record<string, number>>;
  modelPrice: Readonly<Record<string, number>>;
  groupRatio: Readonly<Record<string, number>>;
  /** Tokens pre-charged when the request gives no max_tokens (option PreConsumedQuota, default 500). */
  preConsumedTokens: number;
  /** Quota units per US dollar (QuotaPerUnit, default 500 000). */
  quotaPerUnit: number;
}

/** new-api (v0.3) returns 30 for a model without a configured ratio. */
export const MISSING_MODEL_RATIO = 30;

export interface ModelPricing {
  /** Fixed price per call in dollars, or -1 when the model is priced by ratio. */
  modelPrice: number;
  modelRatio: number;
  completionRatio: number;
  groupRatio: number;
}

/** `gpt-4-gizmo-…` and `gpt-4o-gizmo-…` share one entry, as new-api normalises them. */
export function pricingModelName(model: string): string {
  if (model.startsWith('gpt-4-gizmo')) return 'gpt-4-gizmo-*';
  if (model.startsWith('gpt-4o-gizmo')) return 'gpt-4o-gizmo-*';
  return model;
}

/** The hard-coded completion rules run before the CompletionRatio option, which only fills the gaps. */
export function completionRatioOf(model: string, configured: Readonly<Record<string, number>>): number {
  const name = pricingModelName(model);
  if (name.startsWith('gpt-3.5')) {
    if (name === 'gpt-3.5-turbo' || name.endsWith('0125')) return 3;
    if (name.endsWith('1106')) return 2;
    return 4 / 3;
  }
  if (name.startsWith('gpt-4') && !name.endsWith('-all') && !name.endsWith('-gizmo-*')) {
    if (name.startsWith('gpt-4-turbo') || name.endsWith('preview')) return 3;
    if (name.startsWith('gpt-4o')) return name === 'gpt-4o-2024-05-13' ? 3 : 4;
    return 2;
  }
  if (name.startsWith('o1-') || name === 'chatgpt-4o-latest') return 4;
  if (name.includes('claude-instant-1') || name.includes('claude-2')) return 3;
  if (name.includes('claude-3')) return 5;
  if (name.startsWith('mistral-')) return 3;
  if (name.startsWith('gemini-')) return 4;
  if (name.startsWith('command')) {
    if (name === 'command-r') return 3;
    if (name === 'command-r-plus') return 5;
    if (name === 'command-r-08-2024' || name === 'command-r-plus-08-2024') return 4;
    return 2;
  }
  if (name.startsWith('deepseek')) return 2;
  if (/^ERNIE-(Speed|Lite|Character|Functions)/.test(name)) return 2;
  if (name === 'llama2-70b-4096') return 0.8 / 0.64;
  if (name === 'llama3-8b-8192') return 2;
  if (name === 'llama3-70b-8192') return 0.79 / 0.59;
  const value = configured[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : 1;
}

export function pricingFor(tables: PricingTables, model: string, group: string): ModelPricing {
  const name = pricingModelName(model);
  const price = tables.modelPrice[name];
  const ratio = tables.modelRatio[name];
  const groupRatio = tables.groupRatio[group];
  return {
    modelPrice: typeof price === 'number' && Number.isFinite(price) ? price : -1,
    modelRatio: typeof ratio === 'number' && Number.isFinite(ratio) ? ratio : MISSING_MODEL_RATIO,
    completionRatio: completionRatioOf(name, tables.completionRatio),
    groupRatio: typeof groupRatio === 'number' && Number.isFinite(groupRatio) ? groupRatio : 1,
  };
}

/**
 * The request's side of the pre-consume: its prompt tokens, its max_tokens, and whether the mode is priced by
 * its input alone (text to speech, rerank: new-api pre-consumes exactly those tokens, with no 500 default,
 * so a long input reserves what it will cost rather than the default's fraction of it).
 */
export interface PreConsumeRequest {
  promptTokens: number;
  maxTokens: number | null;
  promptOnly?: boolean;
}

/**
 * What admission reserves. Price mode: the price. With max_tokens the request bounds its cost, so the
 * reservation is that bound (prompt plus max_tokens at the completion ratio); otherwise new-api's estimate
 * (PreConsumedQuota tokens at the model ratio).
 */
export function reservationQuota(tables: PricingTables, pricing: ModelPricing, request: PreConsumeRequest): number {
  if (pricing.modelPrice >= 0) return Math.trunc(pricing.modelPrice * tables.quotaPerUnit * pricing.groupRatio);
  if (request.promptOnly) return Math.ceil(request.promptTokens * pricing.modelRatio * pricing.groupRatio);
  const tokens =
    request.maxTokens && request.maxTokens > 0
      ? request.promptTokens + request.maxTokens * pricing.completionRatio
      : tables.preConsumedTokens;
  return Math.ceil(tokens * pricing.modelRatio * pricing.groupRatio);
}

/** new-api's pre-consume figure, used only in its error message ("need quota: Y"). */
export function referencePreConsume(tables: PricingTables, pricing: ModelPricing, request: PreConsumeRequest): number {
  if (pricing.modelPrice >= 0) return Math.trunc(pricing.modelPrice * tables.quotaPerUnit * pricing.groupRatio);
  if (request.promptOnly) return Math.trunc(request.promptTokens * pricing.modelRatio * pricing.groupRatio);
  const tokens = request.maxTokens && request.maxTokens > 0 ? request.promptTokens + request.maxTokens : tables.preConsumedTokens;
  return Math.trunc(tokens * pricing.modelRatio * pricing.groupRatio);
}

/**
 * The charge for what was used, as new-api settles it. A request that used no tokens at all is charged
 * nothing (new-api kept the pre-consumed amount: a leak).
 */
export function finalQuota(
  tables: PricingTables,
  pricing: ModelPricing,
  usage: { promptTokens: number; completionTokens: number },
): number {
  if (usage.promptTokens + usage.completionTokens === 0) return 0;
  if (pricing.modelPrice >= 0) return Math.trunc(pricing.modelPrice * tables.quotaPerUnit * pricing.groupRatio);
  const ratio = pricing.modelRatio * pricing.groupRatio;
  const quota = Math.round((usage.promptTokens + Math.round(usage.completionTokens * pricing.completionRatio)) * ratio);
  if (ratio !== 0 && quota <= 0) return 1;
  return quota;
}
