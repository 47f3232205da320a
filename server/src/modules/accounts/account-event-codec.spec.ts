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
});
