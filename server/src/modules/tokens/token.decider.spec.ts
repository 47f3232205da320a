import { decide, evolve, fold, initialTokenQuotaState, InvalidTokenQuotaError } from './token.decider';

const allot = (remainQuota: number, unlimited = false, current: { remainQuota: number; unlimited: boolean } | null = null) =>
  ({ type: 'AllotTokenQuota', userId: 7, remainQuota, unlimited, current }) as const;

describe('token decider', () => {
  it('allots the initial quota on creation (before: null), zero included', () => {
    expect(decide(allot(500000), initialTokenQuotaState)).toEqual([
      { type: 'TokenQuotaAllotted', data: { userId: 7, remainQuota: 500000, unlimited: false, before: null } },
    ]);
    expect(decide(allot(0), initialTokenQuotaState)).toHaveLength(1);
  });

  it('records the balance the edit was decided against, and nothing when neither figure changed', () => {
    const state = fold(decide(allot(1000), initialTokenQuotaState));
    expect(decide(allot(2000, false, { remainQuota: 400, unlimited: false }), state)).toEqual([
      { type: 'TokenQuotaAllotted', data: { userId: 7, remainQuota: 2000, unlimited: false, before: { remainQuota: 400, unlimited: false } } },
    ]);
    expect(decide(allot(400, false, { remainQuota: 400, unlimited: false }), state)).toEqual([]);
    expect(decide(allot(400, true, { remainQuota: 400, unlimited: false }), state)).toHaveLength(1);
    // Without a shown balance the last allotment is the reference.
    expect(decide(allot(1000), state)).toEqual([]);
  });

  it('lets an overdrawn token be left untouched but never allots an unsafe amount', () => {
    expect(decide(allot(-50, false, { remainQuota: -50, unlimited: false }), initialTokenQuotaState)).toEqual([]);
    expect(() => decide(allot(2 ** 60), initialTokenQuotaState)).toThrow(InvalidTokenQuotaError);
    expect(() => decide(allot(1.5), initialTokenQuotaState)).toThrow(InvalidTokenQuotaError);
  });

  it('evolves to the last allotment', () => {
    const events = [...decide(allot(10), initialTokenQuotaState), ...decide(allot(20, true, { remainQuota: 10, unlimited: false }), initialTokenQuotaState)];
    expect(fold(events)).toEqual({ allotted: true, remainQuota: 20, unlimited: true });
    expect(evolve(initialTokenQuotaState, events[0])).toEqual({ allotted: true, remainQuota: 10, unlimited: false });
  });
});
