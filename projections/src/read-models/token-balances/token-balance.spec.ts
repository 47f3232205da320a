import { applyAllotment, applyConsumption, applyRefund, emptyTokenBalance } from './token-balance';

describe('token balance fold', () => {
  it('sets the remaining quota on an allotment and keeps what was used', () => {
    const used = { userId: 3, remainQuota: 40, usedQuota: 60, accessedTime: 100 };
    expect(applyAllotment(used, { userId: 3, remainQuota: 500, unlimited: false, before: { remainQuota: 40, unlimited: false } })).toEqual({
      userId: 3,
      remainQuota: 500,
      usedQuota: 60,
      accessedTime: 100,
    });
  });

  it('charges a limited token: remaining down (below zero if it must), used up, last use moves forward only', () => {
    const start = applyAllotment(emptyTokenBalance, { userId: 3, remainQuota: 100, unlimited: false, before: null });
    const once = applyConsumption(start, 3, { tokenId: 9, quota: 70, unlimited: false }, 1000);
    expect(once).toEqual({ userId: 3, remainQuota: 30, usedQuota: 70, accessedTime: 1000 });
    expect(applyConsumption(once, 3, { tokenId: 9, quota: 50, unlimited: false }, 900)).toEqual({
      userId: 3,
      remainQuota: -20,
      usedQuota: 120,
      accessedTime: 1000,
    });
  });

  it("leaves an unlimited token's remaining quota alone but counts its use (contract 4)", () => {
    const start = { userId: 3, remainQuota: 5, usedQuota: 0, accessedTime: 0 };
    expect(applyConsumption(start, 3, { tokenId: 9, quota: 70, unlimited: true }, 10)).toEqual({
      userId: 3,
      remainQuota: 5,
      usedQuota: 70,
      accessedTime: 10,
    });
  });

  it('learns the owner from a charge that arrives before any allotment', () => {
    expect(applyConsumption(emptyTokenBalance, 8, { tokenId: 1, quota: 1, unlimited: false }, 5).userId).toBe(8);
  });

  it("gives a failed task's refund back to the token that paid: remaining up unless unlimited, used down", () => {
    const charged = { userId: 3, remainQuota: 30, usedQuota: 70, accessedTime: 1000 };
    expect(applyRefund(charged, 3, { amount: 70, tokenUnlimited: false })).toEqual({
      userId: 3,
      remainQuota: 100,
      usedQuota: 0,
      accessedTime: 1000,
    });
    expect(applyRefund(charged, 3, { amount: 70, tokenUnlimited: true })).toEqual({
      userId: 3,
      remainQuota: 30,
      usedQuota: 0,
      accessedTime: 1000,
    });
  });
});
