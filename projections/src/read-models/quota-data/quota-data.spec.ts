import { hourBucket, quotaDataChargeOf, quotaDataKey } from './quota-data';

const ledgerTime = new Date(1_732_604_400_500);
const base = {
  quota: 225,
  username: 'alice',
  modelName: 'gpt-4o-mini',
  promptTokens: 1000,
  completionTokens: 500,
  createdAt: 1_732_601_234,
};

describe('quota data fold', () => {
  it('buckets to the start of the UTC hour', () => {
    expect(hourBucket(1_732_600_800)).toBe(1_732_600_800);
    expect(hourBucket(1_732_604_399)).toBe(1_732_600_800);
    expect(hourBucket(1_732_604_400)).toBe(1_732_604_400);
    expect(hourBucket(0)).toBe(0);
  });

  it('counts a charge by user, name, model and the hour it was admitted in, with prompt + completion tokens used', () => {
    expect(quotaDataChargeOf(7, base, ledgerTime)).toEqual({
      userId: 7,
      username: 'alice',
      modelName: 'gpt-4o-mini',
      hour: 1_732_600_800,
      quota: 225,
      tokenUsed: 1500,
    });
  });

  it('falls back to the ledger time without an admission time, and reads odd counts and text leniently', () => {
    const charge = quotaDataChargeOf(
      7,
      { quota: 0, username: 'a\u0000b', modelName: 'm'.repeat(300), promptTokens: -3, completionTokens: 2.7 },
      ledgerTime,
    );
    expect(charge).toEqual({ userId: 7, username: 'ab', modelName: 'm'.repeat(256), hour: 1_732_604_400, quota: 0, tokenUsed: 2 });
  });

  it('adds nothing for a charge settled while LogConsumeEnabled or DataExportEnabled was off', () => {
    expect(quotaDataChargeOf(7, { ...base, logConsume: false }, ledgerTime)).toBeNull();
    expect(quotaDataChargeOf(7, { ...base, dataExport: false }, ledgerTime)).toBeNull();
    expect(quotaDataChargeOf(7, { ...base, logConsume: true, dataExport: true }, ledgerTime)).not.toBeNull();
  });

  it('refuses a charge whose quota is not a safe integer, whatever the flags', () => {
    expect(() => quotaDataChargeOf(7, { ...base, quota: 1.5 }, ledgerTime)).toThrow(/quota/);
    expect(() => quotaDataChargeOf(7, { ...base, quota: 1.5, dataExport: false }, ledgerTime)).toThrow(/quota/);
  });

  it('keys rows so that no field can run into the next', () => {
    const a = quotaDataChargeOf(1, { ...base, username: 'a', modelName: 'b c' }, ledgerTime)!;
    const b = quotaDataChargeOf(1, { ...base, username: 'a b', modelName: 'c' }, ledgerTime)!;
    expect(quotaDataKey(a)).not.toBe(quotaDataKey(b));
  });
});
