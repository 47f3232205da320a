import type { EpayFake } from '../fakes/epay/epay-fake';
import { createTestApp, type TestApp } from '../support/app';
import { configureEpay } from './topup-support';
import { call, type Caller, projected, register, rootCaller, setOptions, tablesFingerprint } from './users-support';

/**
 * Bad input on every online top-up route, with the gateway configured (so a good request WOULD write an order):
 * malformed JSON, wrong types, negative and huge amounts, unknown payment methods, bad paging and filters. Each gets
 * its documented answer and no table changes.
 */
describe('online top-up: bad input is refused with the documented error and writes nothing', () => {
  let target: TestApp;
  let root: Caller;
  let alice: Caller;
  let fake: EpayFake;

  beforeAll(async () => {
    target = await createTestApp();
    root = await rootCaller(target);
    alice = await register(target, 'alice');
    fake = await configureEpay(target);
    await setOptions(target, { MinTopUp: '2' });
    await projected(target);
  });
  afterAll(async () => {
    await fake.close();
    await target.close();
  });

  async function unchanged(run: () => Promise<void>): Promise<void> {
    await projected(target);
    const before = await tablesFingerprint(target);
    await run();
    await projected(target);
    expect(await tablesFingerprint(target)).toBe(before);
  }

  const raw = (path: string, text: string, type = 'application/json') =>
    target.http().post(path).set('Authorization', alice.token).set('Content-Type', type).send(text);

  it.each(['/api/user/pay', '/api/user/amount'])('%s: undecodable bodies and wrong types are 参数错误', async (path) => {
    await unchanged(async () => {
      const bodies = ['{"amount":', '{"amount": 5,}', '[]', '"5"', '42', 'null', '{"amount": 5}{'];
      for (const text of bodies) {
        const response = await raw(path, text);
        expect([text, response.status, response.body]).toEqual([text, 200, { message: 'error', data: '参数错误' }]);
      }
      expect((await raw(path, 'amount=5', 'text/plain')).body).toEqual({ message: 'error', data: '参数错误' });
      expect((await raw(path, 'amount=5', 'application/x-www-form-urlencoded')).body).toEqual({ message: 'error', data: '参数错误' });
      for (const amount of ['5', 5.5, true, [5], { value: 5 }, 1e308, 2 ** 53]) {
        const response = await call(target, alice, 'post', path, { amount, payment_method: 'zfb' });
        expect([amount, response.body]).toEqual([amount, { message: 'error', data: '参数错误' }]);
      }
      const huge = await raw(path, '{"amount":123456789012345678901234567890,"payment_method":"zfb"}');
      expect(huge.body).toEqual({ message: 'error', data: '参数错误' });
      for (const extra of [{ payment_method: 5 }, { payment_method: ['zfb'] }, { top_up_code: 7 }, { payment_method: 'z\u0000fb' }]) {
        const response = await call(target, alice, 'post', path, { amount: 5, ...extra });
        expect([extra, response.body]).toEqual([extra, { message: 'error', data: '参数错误' }]);
      }
    });
  });

  it.each(['/api/user/pay', '/api/user/amount'])(
    '%s: amounts below the minimum, negative or beyond the maximum are refused',
    async (path) => {
      await unchanged(async () => {
        for (const amount of [-5, 0, 1, -(2 ** 53 - 1)]) {
          expect((await call(target, alice, 'post', path, { amount, payment_method: 'zfb' })).body).toEqual({
            message: 'error',
            data: '充值数量不能小于 2',
          });
        }
        expect((await call(target, alice, 'post', path, {})).body).toEqual({ message: 'error', data: '充值数量不能小于 2' });
        for (const amount of [2_000_001, 2 ** 53 - 1]) {
          expect((await call(target, alice, 'post', path, { amount, payment_method: 'zfb' })).body).toEqual({
            message: 'error',
            data: '充值数量不能大于 2000000',
          });
        }
      });
    },
  );

  it('/api/user/pay: unknown payment methods are refused (new-api sent an empty type to the gateway)', async () => {
    await unchanged(async () => {
      for (const method of ['', 'alipay', 'wxpay', 'ZFB', 'qqpay', ' zfb', '<script>', 'x'.repeat(10_000)]) {
        const response = await call(target, alice, 'post', '/api/user/pay', { amount: 5, payment_method: method });
        expect([method.slice(0, 20), response.body]).toEqual([method.slice(0, 20), { message: 'error', data: '不支持的支付方式' }]);
      }
      expect((await call(target, alice, 'post', '/api/user/pay', { amount: 5 })).body).toEqual({
        message: 'error',
        data: '不支持的支付方式',
      });
    });
    expect(fake.requests).toEqual([]);
  });

  it('/api/user/pay and /amount: a zero Price makes the money too low; without a login it is 401', async () => {
    await setOptions(target, { Price: '0' });
    await unchanged(async () => {
      expect((await call(target, alice, 'post', '/api/user/pay', { amount: 5, payment_method: 'wx' })).body).toEqual({
        message: 'error',
        data: '充值金额过低',
      });
      expect((await call(target, alice, 'post', '/api/user/amount', { amount: 5 })).body).toEqual({
        message: 'error',
        data: '充值金额过低',
      });
      for (const path of ['/api/user/pay', '/api/user/amount']) {
        const anonymous = await call(target, null, 'post', path, { amount: 5, payment_method: 'wx' });
        expect(anonymous.status).toBe(401);
        expect(anonymous.body.success).toBe(false);
      }
    });
    await setOptions(target, { Price: '7.3' });
  });

  it('history lists: bad p, page_size and user_id are 无效的参数', async () => {
    await unchanged(async () => {
      for (const query of ['p=-1', 'p=x', 'p=1.5', 'p=99999999999', 'page_size=0', 'page_size=101', 'page_size=-3', 'page_size=ten']) {
        for (const [caller, path] of [
          [alice, '/api/user/topup/self'],
          [root, '/api/user/topup'],
        ] as const) {
          const response = await call(target, caller, 'get', `${path}?${query}`);
          expect([path, query, response.body]).toEqual([path, query, { success: false, message: '无效的参数' }]);
        }
      }
      for (const userId of ['x', '-1', '0', '1.5', '99999999999', "1' OR '1'='1"]) {
        const response = await call(target, root, 'get', `/api/user/topup?user_id=${encodeURIComponent(userId)}`);
        expect([userId, response.body]).toEqual([userId, { success: false, message: '无效的参数' }]);
      }
      // A user with no orders is an empty page, not an error.
      expect((await call(target, root, 'get', '/api/user/topup?user_id=987654')).body).toEqual({ success: true, message: '', data: [] });
    });
  });

  it('the callback: unsigned or malformed queries answer fail and write nothing', async () => {
    await unchanged(async () => {
      for (const query of ['', '?sign=', '?out_trade_no[]=a&sign=b', '?money=1&money=2', `?sign=${'x'.repeat(5000)}`, '?%zz=1']) {
        const response = await target.http().get(`/api/user/epay/notify${query}`).buffer(true);
        expect([query.slice(0, 30), response.status, response.text]).toEqual([query.slice(0, 30), 200, 'fail']);
      }
    });
  });
});
