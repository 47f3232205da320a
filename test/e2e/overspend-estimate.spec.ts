import { accountQuota, burst, chargesOfUser, expectChargedExactly, holder, overspendFixture, sum, tokenRemain } from './overspend-support';

jest.setTimeout(180_000);

/**
 * Issue 19 §2, without max_tokens: the reservation is only the PreConsumedQuota estimate (500 tokens × 0.25 = 125 for
 * gpt-3.5-turbo), and the upstream reports 300 completion tokens, a charge of round((12 + 900) × 0.25) = 228. Nothing
 * caps the completion here; what bounds the balance is admission: a charge above its reservation takes only what the
 * balance still has available (COVER), so concurrent overruns cannot stack below zero.
 */
describe('overspend: no max_tokens, the reservation is an estimate the answer exceeds', () => {
  const context = overspendFixture();

  beforeAll(() => {
    context.openai.promptTokens = 12;
    context.openai.completionTokens = 300;
  });

  it('a lone overrun is charged in full while the balance has it, and is not flagged', async () => {
    const user = await holder(context, 'ovlone', 10_000);
    const result = await burst(context, user, 1, {});
    const charges = await chargesOfUser(context, user.id);
    expectChargedExactly(charges, result.answered);
    expect(charges[0]).toMatchObject({ quota: 228, completionTokens: 300 });
    expect(charges[0].billingCapped).toBeUndefined();
    expect(await accountQuota(context, user.id)).toBe(10_000 - 228);
  });

  for (const concurrency of [100, 500]) {
    it(`user: ${concurrency} concurrent overruns end at or above zero; the last ones are cut to what was left and flagged`, async () => {
      const quota = concurrency * 20; // 16 % of the requests fit their 125-quota estimates
      const user = await holder(context, `ove${concurrency}`, quota);
      const result = await burst(context, user, concurrency, {});
      expect(result.answered.length).toBeGreaterThan(1);

      const charges = await chargesOfUser(context, user.id);
      expectChargedExactly(charges, result.answered);
      for (const charge of charges) {
        expect(charge.completionTokens).toBe(300);
        expect(charge.quota).toBeLessThanOrEqual(228);
        // A cut charge says so; a charge in full does not.
        expect(charge.billingCapped === true).toBe(charge.quota < 228);
      }
      const balance = await accountQuota(context, user.id);
      expect(balance).toBe(quota - sum(charges));
      expect(balance).toBeGreaterThanOrEqual(0);
      process.stdout.write(
        `overspend estimate user@${concurrency}: quota ${quota}, ${result.answered.length} answered, charged ${sum(charges)}, balance ${balance}\n`,
      );
    });
  }

  it('limited token: 100 concurrent overruns end at or above zero', async () => {
    const remain = 2_000;
    const user = await holder(context, 'ovet', 10_000_000, { remain_quota: remain });
    const result = await burst(context, user, 100, {});
    const charges = await chargesOfUser(context, user.id);
    expectChargedExactly(charges, result.answered);
    const left = await tokenRemain(context, user.tokenId);
    expect(left).toBe(remain - sum(charges));
    expect(left).toBeGreaterThanOrEqual(0);
    process.stdout.write(
      `overspend estimate token@100: remain ${remain}, ${result.answered.length} answered, charged ${sum(charges)}, left ${left}\n`,
    );
  });
});
