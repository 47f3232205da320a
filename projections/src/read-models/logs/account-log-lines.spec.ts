import { accountLogLine } from './account-log-lines';

const currency = { inCurrency: true, quotaPerUnit: 500000 };
const points = { inCurrency: false, quotaPerUnit: 500000 };

describe('accountLogLine', () => {
  it('words the new-user gift, the invitee gift and the inviter reward as system rows (type 4)', () => {
    expect(accountLogLine({ type: 'QuotaGranted', data: { amount: 500000, kind: 'new_user' } }, currency)).toEqual({
      type: 4,
      content: '新用户注册赠送 ＄1.000000 额度',
    });
    expect(accountLogLine({ type: 'QuotaGranted', data: { amount: 250000, kind: 'invitee_gift' } }, currency)).toEqual({
      type: 4,
      content: '使用邀请码赠送 ＄0.500000 额度',
    });
    expect(accountLogLine({ type: 'InviterRewarded', data: { amount: 100, inviteeId: 3 } }, points)).toEqual({
      type: 4,
      content: '邀请用户赠送 100 点额度',
    });
  });

  it('words an admin quota edit as a manage row (type 3) with both amounts', () => {
    expect(accountLogLine({ type: 'QuotaAdjustedByAdmin', data: { before: 500000, after: 0, adminId: 1 } }, currency)).toEqual({
      type: 3,
      content: '管理员将用户额度从 ＄1.000000 额度修改为 ＄0.000000 额度',
    });
  });

  it('gives an affiliate transfer a system row (an improvement: new-api writes none)', () => {
    expect(accountLogLine({ type: 'AffiliateQuotaTransferred', data: { amount: 1000000 } }, currency)).toEqual({
      type: 4,
      content: '邀请额度划转 ＄2.000000 额度',
    });
  });

  it('writes no row for the root account initial quota, like new-api', () => {
    expect(accountLogLine({ type: 'QuotaGranted', data: { amount: 100000000, kind: 'root_initial' } }, currency)).toBeNull();
  });

  it('words a redemption credit as a top-up row (type 1) with the code id, as new-api does', () => {
    expect(accountLogLine({ type: 'QuotaRedeemed', data: { amount: 250000, redemptionId: 42 } }, currency)).toEqual({
      type: 1,
      content: '通过兑换码充值 ＄0.500000 额度，兑换码ID 42',
    });
    expect(accountLogLine({ type: 'QuotaRedeemed', data: { amount: 100, redemptionId: 7 } }, points)).toEqual({
      type: 1,
      content: '通过兑换码充值 100 点额度，兑换码ID 7',
    });
  });

  it('words an online top-up as a top-up row (type 1) with the paid money in %f, as new-api does', () => {
    const toppedUp = {
      type: 'QuotaToppedUp',
      data: { amount: 5000000, tradeNo: 'USR1NOabcdef1700000000', money: 73, paymentMethod: 'zfb' },
    } as const;
    expect(accountLogLine(toppedUp, currency)).toEqual({
      type: 1,
      content: '使用在线充值成功，充值金额: ＄10.000000 额度，支付金额：73.000000',
    });
    expect(accountLogLine({ ...toppedUp, data: { ...toppedUp.data, money: 21.9 } }, points)).toEqual({
      type: 1,
      content: '使用在线充值成功，充值金额: 5000000 点额度，支付金额：21.900000',
    });
  });

  it('words a failed Midjourney task refund as new-api does (构图失败 <mj id>，补偿 <amount>), a system row', () => {
    const refunded = {
      type: 'QuotaRefunded',
      data: {
        amount: 50000,
        tokenId: 4,
        tokenUnlimited: false,
        reason: 'x',
        taskId: 'req-1',
        upstreamTaskId: '1712',
        platform: 'midjourney',
      },
    } as const;
    expect(accountLogLine(refunded, currency)).toEqual({ type: 4, content: '构图失败 1712，补偿 ＄0.100000 额度' });
    expect(accountLogLine({ ...refunded, data: { ...refunded.data, platform: 'suno' } }, points)).toEqual({
      type: 4,
      content: '异步任务执行失败 1712，补偿 50000 点额度',
    });
  });
});
