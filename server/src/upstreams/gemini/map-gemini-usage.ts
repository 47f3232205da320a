import { makeUsage } from '../shared/normalize-usage';
import type { TokenUsage } from '../upstream-adapter';
import type { GeminiUsageMetadata } from './gemini-types';

/**
 * usageMetadata → usage. Thinking tokens are billed as output by Google
 * (https://ai.google.dev/gemini-api/docs/thinking#pricing), so they count as completion tokens.
 */
export function mapGeminiUsage(metadata: GeminiUsageMetadata | undefined): TokenUsage | null {
  if (!metadata) return null;
  const thoughts = metadata.thoughtsTokenCount ?? 0;
  return makeUsage(metadata.promptTokenCount ?? 0, (metadata.candidatesTokenCount ?? 0) + thoughts, {
    total: metadata.totalTokenCount,
    cached: metadata.cachedContentTokenCount,
    reasoning: thoughts,
  });
}
