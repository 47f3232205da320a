import { createTestApp, type TestApp } from '../support/app';
import { call, type Caller, dataSource, projected, seedCaller, setOptions } from './users-support';

interface TokenJson {
  id: number;
  user_id: number;
  key: string;
  status: number;
  name: string;
  created_time: number;
  accessed_time: number;
  expired_time: number;
  remain_quota: number;
  unlimited_quota: boolean;
  model_limits_enabled: boolean;
  model_limits: string;
  allow_ips: string | null;
  used_quota: number;
  group: string;
  DeletedAt: string | null;
}

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

/** The token API: every route, good and bad input, ownership (a caller sees and changes only their own tokens). */
describe('tokens API', () => {
  let target: TestApp;
  let alice: Caller;
  let bob: Caller;

  beforeAll(async () => {
    target = await createTestApp();
    alice = await seedCaller(target, { username: 'alice' });
    bob = await seedCaller(target, { username: 'bob' });
  });
  afterAll(async () => {
    await target.close();
  });

  const db = () => dataSource(target);

  async function create(caller: Caller, body: Record<string, unknown>): Promise<TokenJson> {
    const response = await call(target, caller, 'post', '/api/token/', body).expect(200);
    expect(response.body).toEqual({ success: true, message: '' });
    const list = await call(target, caller, 'get', '/api/token/?p=0&size=1').expect(200);
    return list.body.data[0] as TokenJson;
  }

  async function tokenEvents(
    id: number,
  ): Promise<Array<{ type: string; data: Record<string, unknown>; metadata: Record<string, unknown> }>> {
    return db().query('SELECT type, data, metadata FROM events WHERE stream_id = $1 ORDER BY revision', [`token-${id}`]);
  }

  /** Everything a refused token call must leave alone. */
  async function tokenState(): Promise<string> {
    await projected(target);
    const tokens = await db().query('SELECT * FROM tokens ORDER BY id');
    const balances = await db().query('SELECT * FROM token_balances ORDER BY token_id');
    const events = await db().query('SELECT count(*)::int AS count FROM events');
    return JSON.stringify({ tokens, balances, events });
  }

  /** Undecodable JSON is answered by the HTTP layer (its wording is not ours): any non-empty message. */
  const UNDECODABLE = 'undecodable';

  async function expectRefused(caller: Caller, method: 'get' | 'post' | 'put' | 'delete', path: string, body: unknown, message: string) {
    const before = await tokenState();
    const response = await call(target, caller, method, path, body).expect(200);
    expect(response.body).toEqual({ success: false, message: message === UNDECODABLE ? expect.stringMatching(/\S/) : message });
    expect(await tokenState()).toEqual(before);
  }

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
