import { initialAccountState } from './account.decider';
import { evolveStored, UnknownAccountEventError } from './account-event-codec';

describe('evolveStored', () => {
  it('folds the relay charge into the account, so admin edits and transfers decide against the real balance', () => {
    const granted = evolveStored(initialAccountState, { type: 'QuotaGranted', data: { amount: 1000, kind: 'new_user' } });
    const charged = evolveStored(granted, { type: 'QuotaConsumed', data: { quota: 300, requestId: 'r1' } });
    expect(charged).toMatchObject({ quota: 700, usedQuota: 300, requestCount: 1 });
  });

  it('refuses a charge whose amount is not a safe integer', () => {
    expect(() => evolveStored(initialAccountState, { type: 'QuotaConsumed', data: { quota: 1.5 } })).toThrow(/safe integer/);
  });

  it('still refuses an event type it does not know', () => {
    expect(() => evolveStored(initialAccountState, { type: 'SomethingElse', data: {} })).toThrow(UnknownAccountEventError);
  });

  it('folds an online top-up credit and checks its fields', () => {
    const data = { amount: 5000000, tradeNo: 'USR1NOabcdef1700000000', money: 73, paymentMethod: 'zfb', username: 'u', quotaDisplay: {} };
    expect(evolveStored(initialAccountState, { type: 'QuotaToppedUp', data })).toMatchObject({ quota: 5000000 });
    expect(() => evolveStored(initialAccountState, { type: 'QuotaToppedUp', data: { ...data, tradeNo: 7 } })).toThrow(/not a string/);
    expect(() => evolveStored(initialAccountState, { type: 'QuotaToppedUp', data: { ...data, money: 'x' } })).toThrow(/finite number/);
  });

  it('folds a task refund back into quota and out of used quota, and checks its fields', () => {
    const charged = evolveStored(initialAccountState, { type: 'QuotaConsumed', data: { quota: 300, requestId: 'r1' } });
    const data = {
      amount: 300,
      tokenId: 4,
      tokenUnlimited: false,
      reason: 'x',
      taskId: 'r1',
      upstreamTaskId: '17',
      platform: 'midjourney',
    };
    expect(evolveStored(charged, { type: 'QuotaRefunded', data })).toMatchObject({ quota: 0, usedQuota: 0, requestCount: 1 });
    expect(() => evolveStored(charged, { type: 'QuotaRefunded', data: { ...data, platform: 'dalle' } })).toThrow(/unknown platform/);
    expect(() => evolveStored(charged, { type: 'QuotaRefunded', data: { ...data, amount: 0.5 } })).toThrow(/safe integer/);
  });
});
