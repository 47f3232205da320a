import { formatLogQuota } from './quota-display';

describe('formatLogQuota', () => {
  const currency = { inCurrency: true, quotaPerUnit: 500000 };
  const points = { inCurrency: false, quotaPerUnit: 500000 };

  it('words amounts in dollars with six decimals and a full-width sign in currency mode', () => {
    expect(formatLogQuota(500000, currency)).toBe('＄1.000000 额度');
    expect(formatLogQuota(100000000, currency)).toBe('＄200.000000 额度');
    expect(formatLogQuota(1, currency)).toBe('＄0.000002 额度');
    expect(formatLogQuota(-250000, currency)).toBe('＄-0.500000 额度');
  });

  it('words raw units otherwise', () => {
    expect(formatLogQuota(500000, points)).toBe('500000 点额度');
    expect(formatLogQuota(0, points)).toBe('0 点额度');
  });

  it('falls back to raw units when QuotaPerUnit is not positive (no "Infinity" in a log line)', () => {
    expect(formatLogQuota(42, { inCurrency: true, quotaPerUnit: 0 })).toBe('42 点额度');
  });
});
