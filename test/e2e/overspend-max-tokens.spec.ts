import { accountQuota, burst, chargesOfUser, expectChargedExactly, holder, overspendFixture, sum, tokenRemain } from './overspend-support';

jest.setTimeout(180_000);

/**
 * Issue 19 §2: an upstream that ignores max_tokens (it reports 300 completion tokens whatever the client asks for)
 * and many requests in flight at once. A completion is billed at most the client's max_tokens and flagged; a charge
 * above its reservation takes only what the balance has left; so neither the user's balance nor a limited token's
 * goes below zero (the bound of docs/ledger.md), at 100 and at 500 concurrent requests.
 *
 * gpt-3.5-turbo: model ratio 0.25, completion ratio 3. With max_tokens 10 a request reserves
 * ceil((local prompt count + 30) × 0.25) and is billed round((12 + 30) × 0.25) = 11 (the upstream's prompt count is
 * higher than the local one, so most charges still overrun their reservation a little and go through COVER);
 * unbounded it would be round((12 + 900) × 0.25) = 228.
 */
describe('overspend: an upstream that ignores max_tokens', () => {
  const context = overspendFixture();

  beforeAll(() => {
    context.openai.promptTokens = 12;
    context.openai.completionTokens = 300;
  });

  it('streamed answers too: 100 concurrent streams with max_tokens 10 end at or above zero', async () => {
    const quota = 600;
    const user = await holder(context, 'ovstream', quota);
    const result = await burst(context, user, 100, { max_tokens: 10, stream: true });
    expect(result.answered.length).toBeGreaterThan(1);
    const charges = await chargesOfUser(context, user.id);
    expectChargedExactly(charges, result.answered);
    expect(charges.every((charge) => charge.completionTokens === 10 && charge.billingCapped === true)).toBe(true);
    const balance = await accountQuota(context, user.id);
    expect(balance).toBe(quota - sum(charges));
    expect(balance).toBeGreaterThanOrEqual(0);
    process.stdout.write(
      `overspend stream user@100: quota ${quota}, ${result.answered.length} answered, charged ${sum(charges)}, balance ${balance}\n`,
    );
  });

  for (const concurrency of [100, 500]) {
    it(`user: ${concurrency} concurrent requests never take the balance below zero`, async () => {
      const quota = concurrency * 6; // about half the requests fit
      const user = await holder(context, `ovu${concurrency}`, quota);
      const result = await burst(context, user, concurrency, { max_tokens: 10 });
      expect(result.answered.length).toBeGreaterThan(1);
      expect(result.refused.every((status) => status === 403 || status === 400)).toBe(true);

      const charges = await chargesOfUser(context, user.id);
      expectChargedExactly(charges, result.answered);
      for (const charge of charges) {
        expect(charge).toMatchObject({ completionTokens: 10, billingCapped: true });
        expect(charge.quota).toBeLessThanOrEqual(11);
      }
      const balance = await accountQuota(context, user.id);
      // The read model is the fold of the ledger, and the bound: no lower than zero.
      expect(balance).toBe(quota - sum(charges));
      expect(balance).toBeGreaterThanOrEqual(0);
      process.stdout.write(
        `overspend user@${concurrency}: quota ${quota}, ${result.answered.length} answered, ${result.refused.length} refused, charged ${sum(charges)}, balance ${balance}\n`,
      );
    });

    it(`limited token: ${concurrency} concurrent requests never take its remaining quota below zero`, async () => {
      const remain = concurrency * 6;
      const quota = 10_000_000;
      const user = await holder(context, `ovt${concurrency}`, quota, { remain_quota: remain });
      const result = await burst(context, user, concurrency, { max_tokens: 10 });
      expect(result.answered.length).toBeGreaterThan(1);

      const charges = await chargesOfUser(context, user.id);
      expectChargedExactly(charges, result.answered);
      expect(charges.every((charge) => charge.tokenId === user.tokenId && charge.completionTokens === 10)).toBe(true);
      const left = await tokenRemain(context, user.tokenId);
      expect(left).toBe(remain - sum(charges));
      expect(left).toBeGreaterThanOrEqual(0);
      expect(await accountQuota(context, user.id)).toBe(quota - sum(charges));
      process.stdout.write(
        `overspend token@${concurrency}: remain ${remain}, ${result.answered.length} answered, ${result.refused.length} refused, charged ${sum(charges)}, token left ${left}\n`,
      );
    });
  }
});
