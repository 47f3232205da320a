import type { TestApp } from '../support/app';
import { type TokenJson, tokensApiFixture, UNDECODABLE } from './tokens-api-support';
import { call, type Caller } from './users-support';

/**
 * The token API, changing tokens: edit (full and status_only, quota changes as ledger events), delete, good and bad
 * input, and ownership (a caller changes only their own tokens). Create, list, search and get are in tokens-api.spec.ts.
 */
describe('tokens API (edit and delete)', () => {
  const fixture = tokensApiFixture();
  const { db, create, tokenEvents, expectRefused } = fixture;
  let target: TestApp;
  let alice: Caller;
  let bob: Caller;

  beforeAll(() => {
    ({ target, alice, bob } = fixture.context);
  });

  describe('PUT /api/token/', () => {
    it('overwrites the fields sent, keeps the status, and makes a changed quota a ledger event', async () => {
      const token = await create(alice, { name: 'edit me', remain_quota: 1000 });
      const expiry = Math.floor(Date.now() / 1000) + 86400;
      const response = await call(target, alice, 'put', '/api/token/', {
        id: token.id,
        status: 2,
        name: 'edited',
        remain_quota: 2500,
        expired_time: expiry,
        unlimited_quota: false,
        model_limits_enabled: true,
        model_limits: 'gpt-4o',
        allow_ips: '127.0.0.1',
        group: 'vip',
      }).expect(200);
      expect(response.body.success).toBe(true);
      expect(response.body.data).toMatchObject({
        id: token.id,
        status: 1,
        name: 'edited',
        remain_quota: 2500,
        expired_time: expiry,
        model_limits_enabled: true,
        model_limits: 'gpt-4o',
        allow_ips: '127.0.0.1',
        group: 'vip',
      });
      expect((await call(target, alice, 'get', `/api/token/${token.id}`).expect(200)).body.data).toEqual(response.body.data);
      const events = await tokenEvents(token.id);
      expect(events.map((event) => event.data)).toEqual([
        { userId: alice.id, remainQuota: 1000, unlimited: false, before: null },
        { userId: alice.id, remainQuota: 2500, unlimited: false, before: { remainQuota: 1000, unlimited: false } },
      ]);
      expect(events[1].metadata).toMatchObject({ reasonCode: 'token_edit' });
    });

    it('appends nothing when the quota and the unlimited flag are unchanged', async () => {
      const token = await create(alice, { name: 'quiet', remain_quota: 300 });
      const response = await call(target, alice, 'put', '/api/token/', { ...token, name: 'renamed' }).expect(200);
      expect(response.body.data).toMatchObject({ name: 'renamed', remain_quota: 300 });
      expect(await tokenEvents(token.id)).toHaveLength(1);
    });

    it('enables through a full edit only when expiry or quota allow it, with the new-api messages', async () => {
      const token = await create(alice, { name: 'lapsed', remain_quota: 0 });
      const past = Math.floor(Date.now() / 1000) - 10;
      await db().query('UPDATE tokens SET status = 3, expired_time = $2 WHERE id = $1', [token.id, past]);
      await expectRefused(
        alice,
        'put',
        '/api/token/',
        { id: token.id, status: 1, name: 'lapsed' },
        '令牌已过期，无法启用，请先修改令牌过期时间，或者设置为永不过期',
      );
      await expectRefused(
        alice,
        'put',
        '/api/token/?status_only=true',
        { id: token.id, status: 1 },
        '令牌已过期，无法启用，请先修改令牌过期时间，或者设置为永不过期',
      );
      // Fixing the expiry leaves the status at 3 until the token is enabled explicitly (as new-api).
      const fixed = await call(target, alice, 'put', '/api/token/', { id: token.id, name: 'lapsed', expired_time: -1 }).expect(200);
      expect(fixed.body.data).toMatchObject({ status: 3, expired_time: -1 });

      await db().query('UPDATE tokens SET status = 4 WHERE id = $1', [token.id]);
      await expectRefused(
        alice,
        'put',
        '/api/token/?status_only=true',
        { id: token.id, status: 1 },
        '令牌可用额度已用尽，无法启用，请先修改令牌剩余额度，或者设置为无限额度',
      );
      await call(target, alice, 'put', '/api/token/', { id: token.id, remain_quota: 10 }).expect(200);
      const enabled = await call(target, alice, 'put', '/api/token/?status_only=true', { id: token.id, status: 1 }).expect(200);
      expect(enabled.body).toMatchObject({ success: true, data: { id: token.id, status: 1, remain_quota: 10 } });
    });

    it("refuses bad input and other users' tokens, writing nothing", async () => {
      const token = await create(alice, { name: 'guarded', remain_quota: 50 });
      const cases: Array<[unknown, string]> = [
        [{ id: token.id, name: 'x'.repeat(31) }, '令牌名称过长'],
        [{ id: token.id, remain_quota: -1 }, '令牌额度不能为负数'],
        [{ id: token.id, group: 'svip' }, '令牌分组 svip 已被禁用'],
        [{ id: token.id, allow_ips: 'nope' }, 'IP 白名单中的 nope 不是合法的 IP 地址或网段'],
        [{ id: token.id, expired_time: -2 }, '过期时间无效，请设置为 -1（永不过期）或一个具体时间'],
        [{ id: token.id, remain_quota: '5' }, '无效的参数'],
        [{ id: String(token.id), name: 'x' }, '无效的参数'],
        [{ name: 'no id' }, 'id 或 userId 为空！'],
        [{ id: 0, name: 'zero' }, 'id 或 userId 为空！'],
        [{ id: 999999, name: 'missing' }, 'record not found'],
        ['{"id":', UNDECODABLE],
        ['[1]', '无效的参数'],
      ];
      for (const [body, message] of cases) await expectRefused(alice, 'put', '/api/token/', body, message);
      await expectRefused(bob, 'put', '/api/token/', { id: token.id, name: 'stolen', remain_quota: 1 }, 'record not found');
      await expectRefused(bob, 'put', '/api/token/?status_only=true', { id: token.id, status: 2 }, 'record not found');
      for (const body of [{ id: token.id, status: 3 }, { id: token.id, status: 'x' }, { id: token.id }]) {
        await expectRefused(alice, 'put', '/api/token/?status_only=1', body, '无效的参数');
      }
    });

    it('disables and enables with status_only, answering the token', async () => {
      const token = await create(alice, { name: 'switch', remain_quota: 5 });
      const disabled = await call(target, alice, 'put', '/api/token/?status_only=true', {
        id: token.id,
        status: 2,
        name: 'ignored',
      }).expect(200);
      expect(disabled.body).toEqual({ success: true, message: '', data: { ...token, status: 2 } });
      const enabled = await call(target, alice, 'put', '/api/token/?status_only=true', { id: token.id, status: 1 }).expect(200);
      expect(enabled.body.data).toEqual({ ...token, status: 1 });
    });
  });

  describe('DELETE /api/token/:id', () => {
    it("soft-deletes the caller's token only; the ledger history stays", async () => {
      const token = await create(alice, { name: 'doomed', remain_quota: 9 });
      await expectRefused(bob, 'delete', `/api/token/${token.id}`, undefined, 'record not found');
      expect((await call(target, alice, 'delete', `/api/token/${token.id}/`).expect(200)).body).toEqual({ success: true, message: '' });
      expect((await call(target, alice, 'get', `/api/token/${token.id}`).expect(200)).body).toEqual({
        success: false,
        message: 'record not found',
      });
      const list = (await call(target, alice, 'get', '/api/token/?size=100').expect(200)).body.data as TokenJson[];
      expect(list.some((row) => row.id === token.id)).toBe(false);
      const [row] = await db().query('SELECT deleted_at FROM tokens WHERE id = $1', [token.id]);
      expect(row.deleted_at).toBeInstanceOf(Date);
      expect(await tokenEvents(token.id)).toHaveLength(1);
      await expectRefused(alice, 'delete', `/api/token/${token.id}`, undefined, 'record not found');
      await expectRefused(alice, 'delete', '/api/token/0', undefined, 'id 或 userId 为空！');
      await expectRefused(alice, 'delete', '/api/token/x1', undefined, '无效的参数');
    });
  });
});
