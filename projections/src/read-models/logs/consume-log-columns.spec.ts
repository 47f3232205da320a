import {
  type ConsumeFacts,
  derivedConsumeOther,
  derivedConsumeOtherSorted,
  END_REASON_CODES,
  USAGE_SOURCE_CODES,
} from './consume-log-columns';

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
