import { fold, initialAccountState } from '#server/modules/accounts/account.state';
import { applyQuotaConsumed } from './quota-consumed-fold';

describe('applyQuotaConsumed', () => {
  const granted = fold([{ type: 'QuotaGranted', data: { amount: 1000, kind: 'new_user' } }], initialAccountState);

  it('takes the charge from quota, adds it to used quota and counts the request', () => {
    const next = applyQuotaConsumed(granted, 225);
    expect(next).toEqual({ ...granted, quota: 775, usedQuota: 225, requestCount: 1 });
  });

  it('leaves the invite figures alone and folds charges in sequence', () => {
    const withInvite = { ...granted, affCount: 2, affQuota: 30, affHistoryQuota: 50 };
    const next = [10, 0, 990].reduce(applyQuotaConsumed, withInvite);
    expect(next).toEqual({ ...withInvite, quota: 0, usedQuota: 1000, requestCount: 3 });
  });

  it('may go below zero (a settled charge is never refused) and does not change its input', () => {
    const next = applyQuotaConsumed(granted, 1500);
    expect(next.quota).toBe(-500);
    expect(granted.quota).toBe(1000);
  });
});
