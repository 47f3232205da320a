import { accountStream } from '#server/ledger/streams';
import { createTestApp, type TestApp } from '../support/app';
import { balanceRow, call, type Caller, eventStore, logRows, projected, register, setOptions } from './users-support';

/**
 * POST /api/user/aff_transfer under concurrency (as in new-api: quota ≥ QuotaPerUnit, aff_quota ≥ quota, then
 * aff_quota −= q and quota += q). Racing transfers for an aff_quota that covers only one must move it once: the
 * account stream's expected revision makes the losers decide again against the new balance, and they get the
 * new-api's "划转失败 邀请额度不足！".
 */
describe('affiliate transfer race', () => {
  let target: TestApp;
  let invitations = 0;

  const NEW_USER_QUOTA = 1000;
  const INVITER_REWARD = 600;
  const MINIMUM = 500; // QuotaPerUnit: the smallest transfer

  beforeAll(async () => {
    target = await createTestApp();
    await setOptions(target, {
      QuotaForNewUser: String(NEW_USER_QUOTA),
      QuotaForInviter: String(INVITER_REWARD),
      QuotaForInvitee: '0',
      QuotaPerUnit: String(MINIMUM),
    });
  });
  afterAll(async () => {
    await target.close();
  });

  /** A user whose invite earnings (aff_quota) are `invitees` × 600: with one invitee, room for one 500 transfer. */
  async function inviterWith(name: string, invitees: number): Promise<Caller> {
    const inviter = await register(target, name);
    const code = (await call(target, inviter, 'get', '/api/user/aff')).body.data as string;
    for (let i = 0; i < invitees; i++) await register(target, `inv${++invitations}`, { affCode: code });
    await projected(target);
    expect(await balanceRow(target, inviter.id)).toMatchObject({
      quota: NEW_USER_QUOTA,
      aff_quota: invitees * INVITER_REWARD,
      aff_count: invitees,
    });
    return inviter;
  }

  async function race(inviter: Caller, count: number, amount: number) {
    const responses = await Promise.all(
      Array.from({ length: count }, () => call(target, inviter, 'post', '/api/user/aff_transfer', { quota: amount })),
    );
    for (const response of responses) expect(response.status).toBe(200);
    return responses.map((response) => response.body as { success: boolean; message: string });
  }

  async function transfersOf(userId: number): Promise<number[]> {
    const events = await eventStore(target).readStream(accountStream(userId));
    return events.filter((event) => event.type === 'AffiliateQuotaTransferred').map((event) => Number(event.data.amount));
  }

  it.each([2, 10])(
    'given aff_quota for one transfer, when %i transfers race, then exactly one moves it and the rest get the new-api message',
    async (count) => {
      const inviter = await inviterWith(`race${count}`, 1);
      const answers = await race(inviter, count, MINIMUM);

      const won = answers.filter((answer) => answer.success);
      const lost = answers.filter((answer) => !answer.success);
      expect(won).toEqual([{ success: true, message: '划转成功' }]);
      expect(lost).toEqual(Array.from({ length: count - 1 }, () => ({ success: false, message: '划转失败 邀请额度不足！' })));

      // The ledger moved it once; the projection agrees with the ledger and with the API.
      expect(await transfersOf(inviter.id)).toEqual([MINIMUM]);
      await projected(target);
      expect(await balanceRow(target, inviter.id)).toMatchObject({
        quota: NEW_USER_QUOTA + MINIMUM,
        aff_quota: INVITER_REWARD - MINIMUM,
        aff_history_quota: INVITER_REWARD,
      });
      const self = (await call(target, inviter, 'get', '/api/user/self')).body.data;
      expect(self).toMatchObject({
        quota: NEW_USER_QUOTA + MINIMUM,
        aff_quota: INVITER_REWARD - MINIMUM,
        aff_history_quota: INVITER_REWARD,
      });
      expect((await logRows(target, inviter.id)).filter((row) => row.content.startsWith('邀请额度划转'))).toHaveLength(1);
    },
  );

  it('given aff_quota for some transfers, when ten of mixed sizes race, then the total moved never exceeds aff_quota and quota + aff_quota is conserved', async () => {
    const inviter = await inviterWith('mixed', 3); // 1800
    const amounts = [500, 700, 900, 500, 600, 1000, 500, 800, 500, 1800];
    const answers = await Promise.all(amounts.map((quota) => call(target, inviter, 'post', '/api/user/aff_transfer', { quota })));

    const moved = answers.reduce((total, answer, index) => total + (answer.body.success ? amounts[index] : 0), 0);
    expect(moved).toBeGreaterThan(0);
    expect(moved).toBeLessThanOrEqual(3 * INVITER_REWARD);
    for (const answer of answers) {
      expect([
        { success: true, message: '划转成功' },
        { success: false, message: '划转失败 邀请额度不足！' },
      ]).toContainEqual(answer.body);
    }
    // Whatever won is exactly what the ledger holds, and no loser could have fitted in what is left.
    const transfers = await transfersOf(inviter.id);
    expect(transfers.reduce((sum, amount) => sum + amount, 0)).toBe(moved);
    const left = 3 * INVITER_REWARD - moved;
    const refusedAmounts = amounts.filter((_, index) => !answers[index].body.success);
    for (const refused of refusedAmounts) expect(refused).toBeGreaterThan(left);

    await projected(target);
    const balance = await balanceRow(target, inviter.id);
    expect(balance).toMatchObject({ quota: NEW_USER_QUOTA + moved, aff_quota: left, aff_history_quota: 3 * INVITER_REWARD });
    expect((balance?.quota ?? 0) + (balance?.aff_quota ?? 0)).toBe(NEW_USER_QUOTA + 3 * INVITER_REWARD);
  });
});
