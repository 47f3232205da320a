import { deciderSpec } from '#test/support/decider-spec';
import { decide, evolve, fold, initialTokenQuotaState, InvalidTokenQuotaError } from './token.decider';
import type { TokenEvent } from './token.events';

const { given } = deciderSpec({ decide, evolve, initialState: initialTokenQuotaState });

const allot = (remainQuota: number, unlimited = false, current: { remainQuota: number; unlimited: boolean } | null = null) =>
  ({ type: 'AllotTokenQuota', userId: 7, remainQuota, unlimited, current }) as const;
const allotted = (
  remainQuota: number,
  unlimited = false,
  before: { remainQuota: number; unlimited: boolean } | null = null,
): TokenEvent => ({
  type: 'TokenQuotaAllotted',
  data: { userId: 7, remainQuota, unlimited, before },
});

describe('token decider', () => {
  it('allots the initial quota on creation (before: null), zero included', () => {
    given([])
      .when(allot(500000))
      .then([allotted(500000)]);
    given([])
      .when(allot(0))
      .then([allotted(0)]);
  });

  it('records the balance the edit was decided against, and nothing when neither figure changed', () => {
    const created = given([allotted(1000)]);
    created
      .when(allot(2000, false, { remainQuota: 400, unlimited: false }))
      .then([allotted(2000, false, { remainQuota: 400, unlimited: false })]);
    created.when(allot(400, false, { remainQuota: 400, unlimited: false })).then([]);
    created
      .when(allot(400, true, { remainQuota: 400, unlimited: false }))
      .then([allotted(400, true, { remainQuota: 400, unlimited: false })]);
    // Without a shown balance the edit is compared with the last allotment.
    created.when(allot(1000)).then([]);
  });

  it('lets an overdrawn token be left untouched but never allots an unsafe amount', () => {
    given([])
      .when(allot(-50, false, { remainQuota: -50, unlimited: false }))
      .then([]);
    given([])
      .when(allot(2 ** 60))
      .thenThrows(InvalidTokenQuotaError);
    given([]).when(allot(1.5)).thenThrows(InvalidTokenQuotaError);
  });

  it('evolves to the last allotment', () => {
    const events = [allotted(10), allotted(20, true, { remainQuota: 10, unlimited: false })];
    expect(fold(events)).toEqual({ allotted: true, remainQuota: 20, unlimited: true });
    expect(evolve(initialTokenQuotaState, events[0])).toEqual({ allotted: true, remainQuota: 10, unlimited: false });
  });
});
