import { makeUsage, normalizeOpenAIUsage } from './normalize-usage';

describe('normalizeOpenAIUsage', () => {
  it('keeps counts and the cached and reasoning details', () => {
    expect(
      normalizeOpenAIUsage({
        prompt_tokens: 1200,
        completion_tokens: 300,
        total_tokens: 1500,
        prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 192 },
      }),
    ).toEqual({
      prompt_tokens: 1200,
      completion_tokens: 300,
      total_tokens: 1500,
      prompt_tokens_details: { cached_tokens: 1024 },
      completion_tokens_details: { reasoning_tokens: 192 },
    });
  });

  it('completes embeddings usage and reads input/output spellings', () => {
    expect(normalizeOpenAIUsage({ prompt_tokens: 8, total_tokens: 8 })).toEqual({
      prompt_tokens: 8,
      completion_tokens: 0,
      total_tokens: 8,
    });
    expect(normalizeOpenAIUsage({ input_tokens: 4, output_tokens: 6 })).toEqual({
      prompt_tokens: 4,
      completion_tokens: 6,
      total_tokens: 10,
    });
  });

  it('treats zero, missing and malformed usage as not reported', () => {
    expect(normalizeOpenAIUsage({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 })).toBeNull();
    expect(normalizeOpenAIUsage(null)).toBeNull();
    expect(normalizeOpenAIUsage({ prompt_tokens: '5' })).toBeNull();
    expect(makeUsage(0, 0)).toBeNull();
  });
});
