import { createHash } from 'node:crypto';
import { accountStream, topUpStream } from '#server/ledger/streams';
import type { EpayFake } from '../fakes/epay/epay-fake';
import { createTestApp, type TestApp } from '../support/app';
import { configureEpay, deliver, order, placeAndSubmit, submitForm } from './topup-support';
import { balanceRow, call, type Caller, eventStore, logRows, projected, register, rootCaller, setOptions } from './users-support';

/**
 * Online top-up through Epay, end to end against the fake gateway (test/fakes/epay): the quote, the order and its
 * signed form, the form posted to the gateway's submit.php, the signed callback crediting the account once, the log
 * row, and the order history (own and admin).
 */
describe('online top-up through Epay', () => {
  let target: TestApp;
  let root: Caller;
  let alice: Caller;
  let bob: Caller;
  let fake: EpayFake | undefined;

  beforeAll(async () => {
    target = await createTestApp();
    await setOptions(target, { QuotaForNewUser: '0' });
    root = await rootCaller(target);
    alice = await register(target, 'alice');
    bob = await register(target, 'bob');
  });
  afterAll(async () => {
    await fake?.close();
    await target.close();
  });

  it('quotes USD of quota at Price × TopupGroupRatio, as a 2-decimal string, in new-api s envelope', async () => {
    const quote = (body: unknown, who: Caller = alice) => call(target, who, 'post', '/api/user/amount', body).then((r) => r.body);
    expect(await quote({ amount: 10, top_up_code: '' })).toEqual({ message: 'success', data: '73.00' });
    expect(await quote({ amount: 3 })).toEqual({ message: 'success', data: '21.90' });
    expect(await quote({ amount: 0 })).toEqual({ message: 'error', data: '充值数量不能小于 1' });
    await setOptions(target, { MinTopUp: '5', Price: '8', TopupGroupRatio: '{"default":1.5,"vip":1}' });
    expect(await quote({ amount: 4 })).toEqual({ message: 'error', data: '充值数量不能小于 5' });
    expect(await quote({ amount: 5 })).toEqual({ message: 'success', data: '60.00' });
    // Quota-unit display: the amount is quota units, the minimum MinTopUp × QuotaPerUnit.
    await setOptions(target, { DisplayInCurrencyEnabled: 'false' });
    expect(await quote({ amount: 2_499_999 })).toEqual({ message: 'error', data: '充值数量不能小于 2500000' });
    expect(await quote({ amount: 3_750_000 })).toEqual({ message: 'success', data: '90.00' });
    await setOptions(target, { DisplayInCurrencyEnabled: 'true', MinTopUp: '1', Price: '0.001', TopupGroupRatio: '{"default":1}' });
    // 10 × 0.001 = 0.01: /amount refuses ≤ 0.01.
    expect(await quote({ amount: 10 })).toEqual({ message: 'error', data: '充值金额过低' });
    await setOptions(target, { Price: '7.3' });
  });

  it('refuses to order while the gateway is not configured, and /api/status says online top-up is off', async () => {
    const status = await call(target, null, 'get', '/api/status');
    expect(status.body.data.enable_online_topup).toBe(false);
    expect(status.headers['content-security-policy'].split(';')).toContain("form-action 'self'");
    const refused = await call(target, alice, 'post', '/api/user/pay', { amount: 10, payment_method: 'zfb' });
    expect(refused.body).toEqual({ message: 'error', data: '当前管理员未配置支付信息' });
    // The callback of an unconfigured gateway answers fail (new-api panicked).
    expect(await deliver(target, 'http://localhost:3000/api/user/epay/notify?out_trade_no=x&trade_status=TRADE_SUCCESS')).toBe('fail');
  });

  it('orders: a signed form for PayAddress/submit.php, a pending order in the history, the form accepted by the gateway', async () => {
    fake = await configureEpay(target);
    const status = await call(target, null, 'get', '/api/status');
    expect(status.body.data.enable_online_topup).toBe(true);
    // The console may post its hidden form to the gateway's origin, and to nowhere else.
    expect(status.headers['content-security-policy'].split(';')).toContain(`form-action 'self' ${fake.baseUrl}`);
    await setOptions(target, { ServerAddress: 'https://gate.example.com', PayAddress: `${fake.baseUrl}/some/path/?q=1` });

    const form = await order(target, alice, 10, 'zfb');
    expect(form.url).toBe(`${fake.baseUrl}/submit.php`);
    const { sign, ...rest } = form.params;
    expect(rest).toEqual({
      pid: fake.pid,
      type: 'alipay',
      out_trade_no: expect.stringMatching(new RegExp(`^USR${alice.id}NO[A-Za-z0-9]{6}\\d{10}$`)),
      notify_url: 'https://gate.example.com/api/user/epay/notify',
      return_url: 'https://gate.example.com/log',
      name: 'TUC10',
      money: '73.00',
      device: 'pc',
      sign_type: 'MD5',
    });
    // The signature, computed here by hand: sorted k=v joined with &, the key appended, MD5.
    const signed = Object.keys(rest)
      .filter((key) => key !== 'sign_type')
      .sort()
      .map((key) => `${key}=${rest[key as keyof typeof rest]}`)
      .join('&');
    expect(sign).toBe(
      createHash('md5')
        .update(signed + fake.key)
        .digest('hex'),
    );

    const history = await call(target, alice, 'get', '/api/user/topup/self');
    expect(history.body).toEqual({
      success: true,
      message: '',
      data: [
        {
          id: expect.any(Number),
          user_id: alice.id,
          username: 'alice',
          trade_no: form.params.out_trade_no,
          amount: 10,
          quota: 5_000_000,
          money: 73,
          paid_money: 0,
          payment_method: 'zfb',
          status: 'pending',
          create_time: expect.any(Number),
          complete_time: 0,
        },
      ],
    });
    expect(await submitForm(form)).toContain('易支付收银台');
    expect(fake.orders.get(form.params.out_trade_no)).toMatchObject({ type: 'alipay', money: '73.00', name: 'TUC10' });
    expect(fake.refused).toEqual([]);

    const wx = await order(target, bob, 2, 'wx');
    expect(wx.params).toMatchObject({ type: 'wxpay', money: '14.60', name: 'TUC2' });
    await setOptions(target, { ServerAddress: '', PayAddress: fake.payAddress });
  });

  it('pays: the signed callback credits amount × QuotaPerUnit once, writes the top-up log row and settles the order', async () => {
    await setOptions(target, { CustomCallbackAddress: 'https://callback.example.com' });
    const tradeNo = await placeAndSubmit(target, alice, 20, 'wx');
    await setOptions(target, { CustomCallbackAddress: '' });
    expect(fake!.orders.get(tradeNo)?.notifyUrl).toBe('https://callback.example.com/api/user/epay/notify');
    await projected(target);
    const before = (await balanceRow(target, alice.id))?.quota ?? 0;

    expect(await deliver(target, fake!.callbackUrl(tradeNo))).toBe('success');
    await projected(target);
    expect((await balanceRow(target, alice.id))?.quota).toBe(before + 10_000_000);
    const credits = (await eventStore(target).readStream(accountStream(alice.id))).filter((event) => event.type === 'QuotaToppedUp');
    expect(credits.map((event) => event.data)).toEqual([
      expect.objectContaining({ amount: 10_000_000, tradeNo, money: 146, paymentMethod: 'wx', username: 'alice' }),
    ]);
    expect((await eventStore(target).readStream(topUpStream(tradeNo))).map((event) => event.type)).toEqual(['TopUpOrdered', 'TopUpPaid']);
    const topUpRows = (await logRows(target, alice.id)).filter((row) => row.type === 1);
    expect(topUpRows).toEqual([
      { type: 1, username: 'alice', content: '使用在线充值成功，充值金额: ＄20.000000 额度，支付金额：146.000000' },
    ]);
    const self = await call(target, alice, 'get', '/api/user/self');
    expect(self.body.data.quota).toBe(before + 10_000_000);

    const [latest] = (await call(target, alice, 'get', '/api/user/topup/self?p=0&page_size=1')).body.data;
    expect(latest).toMatchObject({ trade_no: tradeNo, status: 'success', paid_money: 146, quota: 10_000_000 });
    expect(latest.complete_time).toBeGreaterThanOrEqual(latest.create_time);

    // Later callbacks of the paid order are acknowledged and change nothing.
    expect(await deliver(target, fake!.callbackUrl(tradeNo))).toBe('success');
    await projected(target);
    expect((await balanceRow(target, alice.id))?.quota).toBe(before + 10_000_000);
  });

  it('lists orders newest first, paged; admins see everyone s or one user s; users only their own', async () => {
    const own = (await call(target, alice, 'get', '/api/user/topup/self')).body.data as Array<{ user_id: number; id: number }>;
    expect(own.length).toBeGreaterThanOrEqual(2);
    expect(own.every((row) => row.user_id === alice.id)).toBe(true);
    expect(own.map((row) => row.id)).toEqual([...own.map((row) => row.id)].sort((a, b) => b - a));
    const bobs = (await call(target, bob, 'get', '/api/user/topup/self')).body.data as Array<{ user_id: number }>;
    expect(bobs.map((row) => row.user_id)).toEqual([bob.id]);

    const all = (await call(target, root, 'get', '/api/user/topup')).body.data as Array<{ user_id: number }>;
    expect(all).toHaveLength(own.length + bobs.length);
    const filtered = (await call(target, root, 'get', `/api/user/topup?user_id=${bob.id}`)).body.data as Array<{ user_id: number }>;
    expect(filtered.map((row) => row.user_id)).toEqual([bob.id]);
    const second = (await call(target, root, 'get', '/api/user/topup?p=1&page_size=1')).body.data as Array<{ id: number }>;
    expect(second).toHaveLength(1);
    expect(second[0].id).toBe((all[1] as unknown as { id: number }).id);
    expect((await call(target, root, 'get', '/api/user/topup?p=9')).body).toEqual({ success: true, message: '', data: [] });

    expect((await call(target, alice, 'get', '/api/user/topup')).body).toEqual({ success: false, message: '无权进行此操作，权限不足' });
    expect((await call(target, null, 'get', '/api/user/topup/self')).status).toBe(401);
  });
});
