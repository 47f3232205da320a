import { TopUpRefusedError } from './topup.errors';
import { decodeTopUpBody, formatMoney, MAX_TOPUP_QUOTA, quoteTopUp, topUpGroupRatio, type TopUpSettings } from './topup-pricing';

const settings: TopUpSettings = {
  inCurrency: true,
  quotaPerUnit: 500000,
  price: 7.3,
  minTopUp: 1,
  groupRatio: { default: 1, vip: 0.8, svip: 0, weird: 'x' },
};

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof TopUpRefusedError) return error.message;
    throw error;
  }
  throw new Error('not refused');
}

describe('top-up pricing', () => {
  it('prices USD of quota at Price × the group ratio and credits amount × QuotaPerUnit', () => {
    expect(quoteTopUp(10, 'default', settings)).toEqual({ amount: 10, quota: 5_000_000, payMoney: 73 });
    expect(quoteTopUp(10, 'vip', settings).payMoney).toBeCloseTo(58.4, 10);
    expect(formatMoney(quoteTopUp(3, 'default', settings).payMoney)).toBe('21.90');
  });

  it('counts a missing, zero or non-numeric group ratio as 1', () => {
    for (const group of ['svip', 'weird', 'nobody', '__proto__']) expect(topUpGroupRatio(settings, group)).toBe(1);
  });

  it('in quota-unit display the amount is quota units and the minimum is MinTopUp × QuotaPerUnit', () => {
    const points = { ...settings, inCurrency: false, minTopUp: 2 };
    expect(refusal(() => quoteTopUp(999_999, 'default', points))).toBe('充值数量不能小于 1000000');
    // 1.5 USD of quota: credited exactly (new-api truncated the order to whole USD but charged for 1.5).
    expect(quoteTopUp(1_500_000, 'default', { ...points, minTopUp: 1 })).toEqual({ amount: 1_500_000, quota: 1_500_000, payMoney: 21.9 });
  });

  it('refuses below MinTopUp, negative amounts and amounts beyond the maximum', () => {
    expect(refusal(() => quoteTopUp(0, 'default', settings))).toBe('充值数量不能小于 1');
    expect(refusal(() => quoteTopUp(-5, 'default', settings))).toBe('充值数量不能小于 1');
    expect(refusal(() => quoteTopUp(4, 'default', { ...settings, minTopUp: 5 }))).toBe('充值数量不能小于 5');
    expect(refusal(() => quoteTopUp(2_000_001, 'default', settings))).toBe('充值数量不能大于 2000000');
    expect(quoteTopUp(2_000_000, 'default', settings).quota).toBe(MAX_TOPUP_QUOTA);
  });

  it('decodes {amount:int, payment_method, top_up_code}; anything else is 参数错误', () => {
    expect(decodeTopUpBody({ amount: 5, payment_method: 'zfb', top_up_code: '' })).toEqual({ amount: 5, paymentMethod: 'zfb' });
    expect(decodeTopUpBody({})).toEqual({ amount: 0, paymentMethod: '' });
    for (const body of [null, [], 'x', { amount: 1.5 }, { amount: '5' }, { amount: 1e20 }, { payment_method: 1 }, { top_up_code: 3 }]) {
      expect(refusal(() => decodeTopUpBody(body))).toBe('参数错误');
    }
  });
});
