import { makeUsage } from '../shared/normalize-usage';
import type { TokenUsage } from '../upstream-adapter';
import type { AnthropicUsage } from './anthropic-types';

/**
 * Claude's input_tokens excludes cache reads and writes (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#tracking-cache-performance);
 * OpenAI's prompt_tokens includes cached tokens. prompt_tokens is therefore the sum, with the parts in
 * prompt_tokens_details so pricing can apply cache ratios.
 */
export function mapAnthropicUsage(usage: AnthropicUsage): TokenUsage | null {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheCreation = usage.cache_creation_input_tokens ?? 0;
  return makeUsage((usage.input_tokens ?? 0) + cacheRead + cacheCreation, usage.output_tokens ?? 0, {
    cached: cacheRead,
    cacheCreation,
  });
}
