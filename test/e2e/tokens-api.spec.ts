import type { TestApp } from '../support/app';
import { type TokenJson, tokensApiFixture, UNDECODABLE } from './tokens-api-support';
import { call, type Caller, seedCaller, setOptions } from './users-support';

const TOKEN_KEYS = [
  'id',
  'user_id',
  'key',
  'status',
  'name',
  'created_time',
  'accessed_time',
  'expired_time',
  'remain_quota',
  'unlimited_quota',
  'model_limits_enabled',
  'model_limits',
  'allow_ips',
  'used_quota',
  'group',
  'DeletedAt',
];

/**
 * The token API, creating and reading: create (good and bad input), list, search and get, and ownership (a caller
 * sees only their own tokens). Edit and delete are in tokens-api-edit.spec.ts.
 */
describe('tokens API', () => {
  const fixture = tokensApiFixture();
  const { db, create, tokenEvents, expectRefused } = fixture;
  let target: TestApp;
  let alice: Caller;
  let bob: Caller;

  beforeAll(() => {
    ({ target, alice, bob } = fixture.context);
  });

  describe('POST /api/token/', () => {
    it('creates a token with a 48-character key and the quota as a ledger event, answering no data', async () => {
      const token = await create(alice, { name: 'first', remain_quota: 500000, expired_time: -1, unlimited_quota: false, group: '' });
      expect(Object.keys(token)).toEqual(TOKEN_KEYS);
      expect(token).toMatchObject({
        user_id: alice.id,
        status: 1,
        name: 'first',
        expired_time: -1,
        remain_quota: 500000,
        used_quota: 0,
        unlimited_quota: false,
        model_limits_enabled: false,
        model_limits: '',
        allow_ips: '',
        group: '',
        DeletedAt: null,
      });
      expect(token.key).toMatch(/^[0-9a-zA-Z]{48}$/);
      expect(token.created_time).toBeGreaterThan(Date.now() / 1000 - 60);
      const events = await tokenEvents(token.id);
      expect(events).toEqual([
        expect.objectContaining({
          type: 'TokenQuotaAllotted',
          data: { userId: alice.id, remainQuota: 500000, unlimited: false, before: null },
          metadata: expect.objectContaining({ reasonCode: 'token_created', actor: expect.objectContaining({ userId: alice.id }) }),
        }),
      ]);
      const [balance] = await db().query('SELECT user_id, remain_quota::int, used_quota::int FROM token_balances WHERE token_id = $1', [
        token.id,
      ]);
      expect(balance).toEqual({ user_id: alice.id, remain_quota: 500000, used_quota: 0 });
    });

    it('takes the defaults for absent fields: zero expiry means never, quota 0', async () => {
      const token = await create(alice, { name: '', expired_time: 0 });
      expect(token).toMatchObject({ name: '', expired_time: -1, remain_quota: 0, unlimited_quota: false, group: '' });
    });

    it('keeps every field of the drawer: expiry, unlimited, model limits, allow_ips (addresses and ranges), a usable group', async () => {
      const expiry = Math.floor(Date.now() / 1000) + 3600;
      const token = await create(alice, {
        name: '模型受限',
        remain_quota: 0,
        expired_time: expiry,
        unlimited_quota: true,
        model_limits_enabled: true,
        model_limits: 'gpt-4o,gpt-4o-mini',
        allow_ips: '10.0.0.1\n192.168.0.0/16',
        group: 'vip',
      });
      expect(token).toMatchObject({
        name: '模型受限',
        expired_time: expiry,
        unlimited_quota: true,
        model_limits_enabled: true,
        model_limits: 'gpt-4o,gpt-4o-mini',
        allow_ips: '10.0.0.1\n192.168.0.0/16',
        group: 'vip',
      });
      expect((await tokenEvents(token.id))[0].data).toEqual({ userId: alice.id, remainQuota: 0, unlimited: true, before: null });
    });

    it('accepts a name of 30 UTF-8 bytes (10 CJK characters) and refuses 31', async () => {
      expect((await create(alice, { name: '一二三四五六七八九十' })).name).toBe('一二三四五六七八九十');
      await expectRefused(alice, 'post', '/api/token/', { name: 'x'.repeat(31) }, '令牌名称过长');
      await expectRefused(alice, 'post', '/api/token/', { name: '一二三四五六七八九十a' }, '令牌名称过长');
    });

    it('refuses groups the relay would refuse (a fix of new-api), and writes nothing', async () => {
      await expectRefused(alice, 'post', '/api/token/', { name: 'g', group: 'svip' }, '令牌分组 svip 已被禁用');
      await setOptions(target, { UserUsableGroups: JSON.stringify({ default: '默认分组', vip: 'vip分组', gold: '金' }) });
      try {
        await expectRefused(alice, 'post', '/api/token/', { name: 'g', group: 'gold' }, '分组 gold 已被弃用');
      } finally {
        await setOptions(target, { UserUsableGroups: JSON.stringify({ default: '默认分组', vip: 'vip分组' }) });
      }
    });

    it('refuses bad input with the documented messages and writes nothing', async () => {
      const cases: Array<[unknown, string]> = [
        [{ name: 'n', remain_quota: -1 }, '令牌额度不能为负数'],
        [{ name: 'n', expired_time: -5 }, '过期时间无效，请设置为 -1（永不过期）或一个具体时间'],
        [{ name: 'n', allow_ips: '10.0.0.1\nnot-an-ip' }, 'IP 白名单中的 not-an-ip 不是合法的 IP 地址或网段'],
        [{ name: 'n', allow_ips: '10.0.0.0/40' }, 'IP 白名单中的 10.0.0.0/40 不是合法的 IP 地址或网段'],
        [{ name: 'n', model_limits: 'm'.repeat(1025) }, '模型限制列表过长，最多 1024 个字符'],
        [{ name: 'n', group: 'g'.repeat(65) }, '令牌分组名称过长'],
        [{ name: 5 }, '无效的参数'],
        [{ name: 'n', remain_quota: '500000' }, '无效的参数'],
        [{ name: 'n', remain_quota: 1.5 }, '无效的参数'],
        [{ name: 'n', remain_quota: 2 ** 60 }, '无效的参数'],
        [{ name: 'n', unlimited_quota: 'true' }, '无效的参数'],
        [{ name: 'a\u0000b' }, '无效的参数'],
        [{}, '无效的参数'],
        [{ remain_quota: 5 }, '无效的参数'],
        ['{"name":', UNDECODABLE],
        ['[]', '无效的参数'],
        ['null', '无效的参数'],
      ];
      for (const [body, message] of cases) await expectRefused(alice, 'post', '/api/token/', body, message);
    });
  });

  describe('GET /api/token/ and /api/token/search', () => {
    let carol: Caller;
    beforeAll(async () => {
      carol = await seedCaller(target, { username: 'carol' });
      // Configuration rows straight into the table: paging does not need 105 ledger allotments.
      const now = Math.floor(Date.now() / 1000);
      for (let i = 0; i < 105; i++) {
        await db().query('INSERT INTO tokens (user_id, key, name, created_time, accessed_time) VALUES ($1, $2, $3, $4, $4)', [
          carol.id,
          `carol${String(i).padStart(3, '0')}`.padEnd(48, 'k'),
          `bulk ${i}`,
          now,
        ]);
      }
    });

    it("pages 0-based, newest first, size default 10, capped at 100; only the caller's tokens", async () => {
      const ids: number[] = (await db().query('SELECT id FROM tokens WHERE user_id = $1 ORDER BY id DESC', [carol.id])).map(
        (row: { id: number }) => row.id,
      );
      const page = async (query: string) =>
        (await call(target, carol, 'get', `/api/token/${query}`).expect(200)).body.data.map((token: TokenJson) => token.id);
      expect(await page('')).toEqual(ids.slice(0, 10));
      expect(await page('?p=1')).toEqual(ids.slice(10, 20));
      expect(await page('?p=1&size=20')).toEqual(ids.slice(20, 40));
      expect(await page('?p=0&size=999')).toEqual(ids.slice(0, 100));
      expect(await page('?p=1&size=999')).toEqual(ids.slice(100, 105));
      expect(await page('?p=-1&size=0')).toEqual(ids.slice(0, 10));
      expect(await page('?p=abc&size=x')).toEqual(ids.slice(0, 10));
      expect(await page('?p=50')).toEqual([]);
      const alices = (await call(target, alice, 'get', '/api/token/?size=100').expect(200)).body.data as TokenJson[];
      expect(alices.length).toBeGreaterThan(0);
      expect(alices.every((token) => token.user_id === alice.id)).toBe(true);
      expect((await call(target, bob, 'get', '/api/token/').expect(200)).body).toEqual({ success: true, message: '', data: [] });
    });

    it('searches name and key, trimming the key with the cutset {s,k,-}, without paging', async () => {
      const search = async (query: string) =>
        (await call(target, carol, 'get', `/api/token/search?${query}`).expect(200)).body.data as TokenJson[];
      expect((await search('keyword=bulk%201')).map((token) => token.name).sort()).toEqual(
        [
          'bulk 1',
          ...Array.from({ length: 10 }, (_, i) => `bulk 1${i}`),
          'bulk 100',
          'bulk 101',
          'bulk 102',
          'bulk 103',
          'bulk 104',
        ].sort(),
      );
      expect((await search('')).length).toBe(105);
      expect((await search('token=sk-carol042')).map((token) => token.name)).toEqual(['bulk 42']);
      expect((await search('token=carol042-')).map((token) => token.name)).toEqual(['bulk 42']);
      expect(await search('keyword=bulk%2042&token=carol041')).toEqual([]);
      // Wildcards typed by the user are characters, not patterns; NUL matches nothing.
      expect(await search('keyword=%25')).toEqual([]);
      expect(await search('keyword=_')).toEqual([]);
      expect(await search('keyword=a%00b')).toEqual([]);
      // Another user's search never sees carol's tokens.
      expect((await call(target, bob, 'get', '/api/token/search?keyword=bulk').expect(200)).body.data).toEqual([]);
    });
  });

  describe('GET /api/token/:id', () => {
    it('answers the caller\'s own token and "record not found" for anyone else\'s', async () => {
      const token = await create(alice, { name: 'mine', remain_quota: 7 });
      expect((await call(target, alice, 'get', `/api/token/${token.id}`).expect(200)).body).toEqual({
        success: true,
        message: '',
        data: token,
      });
      expect((await call(target, bob, 'get', `/api/token/${token.id}`).expect(200)).body).toEqual({
        success: false,
        message: 'record not found',
      });
      expect((await call(target, alice, 'get', '/api/token/999999').expect(200)).body).toEqual({
        success: false,
        message: 'record not found',
      });
      expect((await call(target, alice, 'get', '/api/token/0').expect(200)).body).toEqual({
        success: false,
        message: 'id 或 userId 为空！',
      });
      for (const id of ['abc', '-1', '1.5', '99999999999']) {
        expect((await call(target, alice, 'get', `/api/token/${id}`).expect(200)).body).toEqual({ success: false, message: '无效的参数' });
      }
    });

    it('refuses anonymous callers with 401', async () => {
      await call(target, null, 'get', '/api/token/').expect(401);
      await call(target, null, 'post', '/api/token/', { name: 'x' }).expect(401);
    });
  });
});
