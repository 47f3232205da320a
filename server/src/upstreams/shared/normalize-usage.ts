import type { TokenUsage } from '../upstream-adapter';

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
}

/** Builds a TokenUsage; zero prompt and completion means "not reported" (the relay then counts locally), hence null. */
export function makeUsage(
  promptTokens: number,
  completionTokens: number,
  extra: { total?: number; cached?: number; cacheCreation?: number; reasoning?: number } = {},
): TokenUsage | null {
  if (promptTokens <= 0 && completionTokens <= 0) return null;
  const usage: TokenUsage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: extra.total && extra.total > 0 ? extra.total : promptTokens + completionTokens,
  };
  if (extra.cached || extra.cacheCreation) {
    usage.prompt_tokens_details = {};
    if (extra.cached) usage.prompt_tokens_details.cached_tokens = extra.cached;
    if (extra.cacheCreation) usage.prompt_tokens_details.cache_creation_tokens = extra.cacheCreation;
  }
  if (extra.reasoning) usage.completion_tokens_details = { reasoning_tokens: extra.reasoning };
  return usage;
}

/** An OpenAI-style usage object as sent by OpenAI and compatible upstreams (also `input_tokens` spellings). */
export function normalizeOpenAIUsage(value: unknown): TokenUsage | null {
  const usage = record(value);
  if (!usage) return null;
  const promptDetails = record(usage.prompt_tokens_details) ?? record(usage.input_tokens_details);
  const completionDetails = record(usage.completion_tokens_details) ?? record(usage.output_tokens_details);
  return makeUsage(count(usage.prompt_tokens ?? usage.input_tokens), count(usage.completion_tokens ?? usage.output_tokens), {
    total: count(usage.total_tokens),
    cached: count(promptDetails?.cached_tokens),
    reasoning: count(completionDetails?.reasoning_tokens),
  });
}
