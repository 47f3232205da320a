import {
  type ConsumeFacts,
  consumeFactsOf,
  derivedConsumeContent,
  derivedConsumeOther,
  derivedConsumeOtherSorted,
  END_REASON_CODES,
  storedConsumeText,
  storedFacts,
  USAGE_SOURCE_CODES,
} from './consume-log-columns';
import { consumeLogRow } from './consume-log-row';

describe('derivedConsumeOther', () => {
  it('writes out exactly what sortedJson gives, for awkward numbers and every code', () => {
    const numbers = [0, -0, 1, -1, -1000, 0.075, 0.1 + 0.2, 1 / 3, 1e-7, 5e-324, 1e21, 1.7976931348623157e308, 12.5, 123456.789];
    let checked = 0;
    for (const [index, value] of numbers.entries()) {
      for (const usageSource of [null, ...USAGE_SOURCE_CODES.keys()]) {
        for (const endReason of [null, ...END_REASON_CODES.keys()]) {
          const facts: ConsumeFacts = {
            modelRatio: value,
            completionRatio: numbers[(index + 1) % numbers.length],
            groupRatio: numbers[(index + 2) % numbers.length],
            modelPrice: numbers[(index + 3) % numbers.length],
            frt: numbers[(index + 4) % numbers.length],
            cacheTokens: index * 7,
            usageSource,
            endReason,
          };
          expect(derivedConsumeOther(facts, 1000 + index)).toBe(derivedConsumeOtherSorted(facts, 1000 + index));
          checked += 1;
        }
      }
    }
    expect(checked).toBe(numbers.length * 3 * 6);
  });

  it('gives nothing for a row without consume columns', () => {
    const none: ConsumeFacts = {
      modelRatio: null,
      completionRatio: null,
      groupRatio: null,
      modelPrice: null,
      frt: null,
      cacheTokens: null,
      usageSource: null,
      endReason: null,
    };
    expect(derivedConsumeOther(none, 1)).toBeNull();
    expect(derivedConsumeOtherSorted(none, 1)).toBeNull();
  });
});

describe('storedFacts: a column holding its fallback is NULL', () => {
  const full: ConsumeFacts = {
    modelRatio: 0.075,
    completionRatio: 1,
    groupRatio: 1,
    modelPrice: -1,
    frt: -1000,
    cacheTokens: 0,
    usageSource: 0,
    endReason: 0,
  };

  it('leaves NULL each column at its fallback, keeps every other value, and never touches model_ratio or the codes', () => {
    expect(storedFacts(full)).toEqual({ ...full, completionRatio: null, groupRatio: null, modelPrice: null, frt: null, cacheTokens: null });
    const other: ConsumeFacts = { ...full, completionRatio: 4, groupRatio: 0.5, modelPrice: 0.02, frt: 312, cacheTokens: 8 };
    expect(storedFacts(other)).toEqual(other);
    // -0 is not the fallback 0 of cache_tokens (Object.is): kept as stored.
    expect(storedFacts({ ...full, cacheTokens: -0 }).cacheTokens).toBe(-0);
    expect(storedFacts({ ...full, modelRatio: 1 }).modelRatio).toBe(1);
    const none: ConsumeFacts = { ...full, modelRatio: null, completionRatio: 1, groupRatio: 1 };
    expect(storedFacts(none)).toBe(none);
  });

  it('derives from the NULL columns exactly the texts the values give, as rows written with the values do', () => {
    const values = [-1000, -1, -0, 0, 1, 4, 0.075, 0.1 + 0.2, 312];
    let checked = 0;
    for (const [index, value] of values.entries()) {
      const facts: ConsumeFacts = {
        ...full,
        completionRatio: value,
        groupRatio: values[(index + 1) % values.length],
        modelPrice: values[(index + 2) % values.length],
        frt: values[(index + 3) % values.length],
        cacheTokens: index % 3 === 0 ? 0 : index,
      };
      const slim = storedFacts(facts);
      expect(derivedConsumeContent(slim, 12, 7)).toBe(derivedConsumeContent(facts, 12, 7));
      expect(derivedConsumeOther(slim, 3)).toBe(derivedConsumeOther(facts, 3));
      expect(derivedConsumeOther(slim, 3)).toBe(derivedConsumeOtherSorted(facts, 3));
      checked += 1;
    }
    expect(checked).toBe(values.length);
  });

  it("stores a typical charge's fallbacks as NULL (group ratio, price, frt, cached tokens), and its texts derive back", () => {
    const data = {
      requestId: 'r',
      userId: 1,
      username: 'root',
      tokenId: 1,
      tokenName: 'main',
      group: 'default',
      modelName: 'gpt-4o-mini',
      upstreamModel: 'gpt-4o-mini',
      channelId: 1,
      channelName: 'c',
      channelPath: [1],
      relayMode: 'chat',
      promptTokens: 12,
      completionTokens: 20,
      cachedTokens: 0,
      modelRatio: 0.075,
      completionRatio: 4,
      groupRatio: 1,
      modelPrice: -1,
      quota: 7,
      tokenUnlimited: false,
      isStream: false,
      useTimeSeconds: 0,
      firstTokenMs: 0,
      createdAt: 1_764_100_000,
      usageSource: 'upstream' as const,
      endReason: 'completed' as const,
    };
    const row = consumeLogRow(1, data, new Date(0));
    const stored = storedConsumeText(row, consumeFactsOf(data));
    expect(stored).toEqual({
      content: null,
      other: null,
      facts: {
        modelRatio: 0.075,
        completionRatio: 4,
        groupRatio: null,
        modelPrice: null,
        frt: null,
        cacheTokens: null,
        usageSource: 0,
        endReason: 0,
      },
    });
    expect(derivedConsumeContent(stored.facts, row.promptTokens, row.completionTokens)).toBe(row.content);
    expect(derivedConsumeOther(stored.facts, row.channelId)).toBe(row.other);
  });
});
