import { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';
import { createTestApp, type TestApp } from '#test/support/app';
import { call, type Caller, dataSource, seedCaller, setOptions } from '#test/e2e/users-support';
import { QuotaAdmissionService } from '#server/relay/admission/quota-admission.service';
import { RelayError } from '#server/common/http/relay-error';
import { type RelayCaller, TokenAuthenticator } from './token-authenticator';
import { TokenAuthCache } from './token-auth-cache';

/**
 * TokenAuthenticator against the whole product (real Postgres, Redis, projector): every refusal of new-api's
 * TokenAuth and of the token part of Distribute with its message and status, the lazy expired/exhausted marking, the cache (no
 * SQL on a warm call) and its invalidation by token and user changes.
 */
describe('TokenAuthenticator', () => {
  let target: TestApp;
  let authenticator: TokenAuthenticator;
  let cache: TokenAuthCache;
  let owner: Caller;
  let admin: Caller;
  let root: Caller;

  beforeAll(async () => {
    target = await createTestApp();
    authenticator = target.app.get(TokenAuthenticator);
    cache = target.app.get(TokenAuthCache);
    owner = await seedCaller(target, { username: 'owner' });
    admin = await seedCaller(target, { username: 'admin', role: 10 });
    root = await seedCaller(target, { username: 'rooty', role: 100 });
  });
  afterAll(async () => {
    await target.close();
  });

  const db = () => dataSource(target);

  /** Creates a token through the API and returns its id and key. */
  async function token(caller: Caller, body: Record<string, unknown> = {}): Promise<{ id: number; key: string }> {
    const created = await call(target, caller, 'post', '/api/token/', { name: 't', remain_quota: 1000, ...body }).expect(200);
    expect(created.body).toEqual({ success: true, message: '' });
    const [row] = await db().query('SELECT id, key FROM tokens WHERE user_id = $1 ORDER BY id DESC LIMIT 1', [caller.id]);
    return row;
  }

  async function refusal(
    authorization: string | undefined,
    ip = '127.0.0.1',
    model?: string,
  ): Promise<{ status: number; message: string; body: unknown }> {
    try {
      await authenticator.authenticate(authorization, ip, model);
    } catch (error) {
      if (!(error instanceof RelayError)) throw error;
      return { status: error.status, message: error.message, body: error.toBody('req-1') };
    }
    throw new Error('authenticate accepted the call');
  }

  const status = async (id: number) => (await db().query('SELECT status FROM tokens WHERE id = $1', [id]))[0].status as number;
  const mask = (key: string) => `sk-${key.slice(0, 3)}***${key.slice(-3)}`;

  /** Counts every SQL statement TypeORM sends while `work` runs. */
  async function countQueries(work: () => Promise<unknown>): Promise<number> {
    const spy = jest.spyOn(PostgresQueryRunner.prototype, 'query');
    try {
      await work();
      return spy.mock.calls.length;
    } finally {
      spy.mockRestore();
    }
  }

  async function eventually(check: () => Promise<boolean>, timeoutMs = 3000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('condition not reached in time');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  describe('reading the key', () => {
    it('accepts "Bearer sk-KEY", "sk-KEY", "Bearer KEY" and the bare key, and answers the caller', async () => {
      const { id, key } = await token(owner, { name: 'reader' });
      const expected: RelayCaller = {
        token: { id, name: 'reader', key, group: '', unlimitedQuota: false, modelLimits: null },
        user: { id: owner.id, username: 'owner', group: 'default', role: 1 },
        group: 'default',
        specificChannelId: null,
      };
      for (const header of [`Bearer sk-${key}`, `sk-${key}`, `Bearer ${key}`, key]) {
        expect(await authenticator.authenticate(header, '127.0.0.1')).toEqual(expected);
      }
    });

    it('answers 401 "未提供令牌" without a key and "无效的令牌" for an unknown or malformed one, in the abort shape', async () => {
      // A header value is trimmed first (as Go's server does), so "Bearer " is the key "Bearer": invalid, not missing.
      for (const header of [undefined, '', '   ', 'Bearer sk-']) {
        expect(await refusal(header)).toEqual({
          status: 401,
          message: '未提供令牌',
          body: { error: { message: '未提供令牌 (request id: req-1)', type: 'new_api_error' } },
        });
      }
      for (const header of [
        'Bearer ',
        `Bearer sk-${'a'.repeat(48)}`,
        'Bearer sk-not$valid',
        `Bearer sk-${'b'.repeat(60)}`,
        "sk-' OR '1'='1",
      ]) {
        expect(await refusal(header)).toMatchObject({ status: 401, message: '无效的令牌' });
      }
    });
  });

  describe('token state', () => {
    it("refuses disabled, expired and exhausted statuses with new-api's messages", async () => {
      const { id, key } = await token(owner);
      await call(target, owner, 'put', '/api/token/?status_only=true', { id, status: 2 }).expect(200);
      expect(await refusal(`Bearer sk-${key}`)).toEqual(expect.objectContaining({ status: 401, message: '该令牌状态不可用' }));
      await db().query('UPDATE tokens SET status = 3 WHERE id = $1', [id]);
      cache.clearLocal(); // a direct SQL write bypasses the commands (and so their invalidation)
      await call(target, owner, 'put', '/api/token/', { id, name: 'touch' }).expect(200);
      expect(await refusal(`Bearer sk-${key}`)).toMatchObject({ status: 401, message: '该令牌已过期' });
      await db().query('UPDATE tokens SET status = 4 WHERE id = $1', [id]);
      await call(target, owner, 'put', '/api/token/', { id, name: 'touch again' }).expect(200);
      expect(await refusal(`Bearer sk-${key}`)).toMatchObject({
        status: 401,
        message: `该令牌额度已用尽 TokenStatusExhausted[${mask(key)}]`,
      });
    });

    it('marks an enabled token past its expiry as expired (status 3) when it is used', async () => {
      const { id, key } = await token(owner, { expired_time: Math.floor(Date.now() / 1000) - 5 });
      expect(await refusal(`Bearer sk-${key}`)).toMatchObject({ status: 401, message: '该令牌已过期' });
      expect(await status(id)).toBe(3);
      // Next use: the status itself answers.
      expect(await refusal(`Bearer sk-${key}`)).toMatchObject({ status: 401, message: '该令牌已过期' });
    });

    it('marks a limited token with nothing left as exhausted (status 4) when it is used; unlimited tokens pass', async () => {
      const empty = await token(owner, { remain_quota: 0 });
      expect(await refusal(`Bearer sk-${empty.key}`)).toMatchObject({
        status: 401,
        message: `[${mask(empty.key)}] 该令牌额度已用尽 !token.UnlimitedQuota && token.RemainQuota = 0`,
      });
      expect(await status(empty.id)).toBe(4);
      const unlimited = await token(owner, { remain_quota: 0, unlimited_quota: true });
      expect((await authenticator.authenticate(`Bearer sk-${unlimited.key}`, '127.0.0.1')).token.unlimitedQuota).toBe(true);
      expect(await status(unlimited.id)).toBe(1);
    });

    it('judges exhaustion on the live available quota (reservations in flight) but marks only what the ledger shows', async () => {
      // A user with money of their own (straight into the projection, before admission first loads it).
      const rich = await seedCaller(target, { username: 'rich' });
      await db().query(
        `INSERT INTO account_balances (user_id, quota, used_quota, request_count, aff_count, aff_quota, aff_history_quota, revision)
         VALUES ($1, 1000000, 0, 0, 0, 0, 0, 0)`,
        [rich.id],
      );
      const { id, key } = await token(rich, { remain_quota: 100 });
      const admission = target.app.get(QuotaAdmissionService);
      const reserved = await admission.reserve({ requestId: 'in-flight', userId: rich.id, tokenId: id, amount: 100, leaseMs: 60_000 });
      expect(reserved.ok).toBe(true);
      expect(await refusal(`Bearer sk-${key}`)).toMatchObject({
        status: 401,
        message: `[${mask(key)}] 该令牌额度已用尽 !token.UnlimitedQuota && token.RemainQuota = 0`,
      });
      expect(await status(id)).toBe(1);
      await admission.release({ requestId: 'in-flight', userId: rich.id, tokenId: id });
      expect((await authenticator.authenticate(`Bearer sk-${key}`, '127.0.0.1')).token.id).toBe(id);
    });
  });

  describe('owner', () => {
    it('answers 403 "用户已被封禁" for a disabled or deleted owner, at once after the change', async () => {
      const user = await seedCaller(target, { username: 'banme' });
      const { key } = await token(user);
      await authenticator.authenticate(`Bearer sk-${key}`, '127.0.0.1');
      expect((await call(target, root, 'post', '/api/user/manage', { id: user.id, action: 'disable' }).expect(200)).body.success).toBe(
        true,
      );
      await eventually(async () => (await refusal(`Bearer sk-${key}`).catch(() => null))?.status === 403);
      expect(await refusal(`Bearer sk-${key}`)).toMatchObject({ status: 403, message: '用户已被封禁' });
      await call(target, root, 'post', '/api/user/manage', { id: user.id, action: 'enable' }).expect(200);
      await eventually(
        async () =>
          await authenticator.authenticate(`Bearer sk-${key}`, '127.0.0.1').then(
            () => true,
            () => false,
          ),
      );
      expect((await call(target, root, 'delete', `/api/user/${user.id}`).expect(200)).body.success).toBe(true);
      await eventually(async () => (await refusal(`Bearer sk-${key}`).catch(() => null))?.status === 403);
      expect(await refusal(`Bearer sk-${key}`)).toMatchObject({ status: 403, message: '用户已被封禁' });
    });
  });

  describe('forced channel (sk-KEY-CHANNELID)', () => {
    it('is for admins only: others get 403 "普通用户不支持指定渠道"', async () => {
      const { key } = await token(owner);
      expect(await refusal(`Bearer sk-${key}-5`)).toMatchObject({ status: 403, message: '普通用户不支持指定渠道' });
      // That check is TokenAuth's own, so it holds on the model-list routes too.
      await expect(authenticator.authenticate(`Bearer sk-${key}-5`, '127.0.0.1', undefined, { tokenAuthOnly: true })).rejects.toThrow(
        '普通用户不支持指定渠道',
      );
    });

    it('gives admins the channel id, skips model limits, and answers 400 "无效的渠道 Id" for a non-number', async () => {
      const { key } = await token(admin, { model_limits_enabled: true, model_limits: 'gpt-4o' });
      expect((await authenticator.authenticate(`Bearer sk-${key}-7`, '127.0.0.1', 'claude-3')).specificChannelId).toBe(7);
      for (const part of ['abc', '', '0', '1.5']) {
        expect(await refusal(`Bearer sk-${key}-${part}`)).toMatchObject({ status: 400, message: '无效的渠道 Id' });
        // The id is Distribute's to read: TokenAuth alone (GET /v1/models) takes the key and ignores it.
        expect(await authenticator.authenticate(`Bearer sk-${key}-${part}`, '127.0.0.1', undefined, { tokenAuthOnly: true })).toMatchObject(
          { specificChannelId: null },
        );
      }
    });
  });

  describe('token restrictions', () => {
    it('checks the IP allow list (addresses and ranges, dual-stack form) with 403', async () => {
      const { key } = await token(owner, { allow_ips: '203.0.113.7\n10.1.0.0/16\n2001:db8::/32' });
      for (const ip of ['203.0.113.7', '::ffff:203.0.113.7', '10.1.200.3', '2001:db8::1']) {
        expect((await authenticator.authenticate(`Bearer sk-${key}`, ip)).token.key).toBe(key);
      }
      for (const ip of ['203.0.113.8', '10.2.0.1', '2001:db9::1', '', 'garbage']) {
        expect(await refusal(`Bearer sk-${key}`, ip)).toMatchObject({ status: 403, message: '您的 IP 不在令牌允许访问的列表中' });
      }
    });

    it("skips the IP allow list with tokenAuthOnly (the model-list and billing routes), keeping TokenAuth's checks", async () => {
      const { id, key } = await token(owner, {
        name: 'lister',
        allow_ips: '203.0.113.7',
        model_limits_enabled: true,
        model_limits: 'gpt-4o',
      });
      expect(await refusal(`Bearer sk-${key}`, '198.51.100.9')).toMatchObject({ status: 403, message: '您的 IP 不在令牌允许访问的列表中' });
      const caller = await authenticator.authenticate(`Bearer sk-${key}`, '198.51.100.9', undefined, { tokenAuthOnly: true });
      expect(caller).toMatchObject({ token: { id, key, name: 'lister' }, user: { id: owner.id } });
      // An explicit false is the normal check.
      await expect(authenticator.authenticate(`Bearer sk-${key}`, '198.51.100.9', undefined, { tokenAuthOnly: false })).rejects.toThrow(
        '您的 IP 不在令牌允许访问的列表中',
      );
      // Model limits, status and owner still apply with the IP check skipped.
      await expect(authenticator.authenticate(`Bearer sk-${key}`, '198.51.100.9', 'gpt-4', { tokenAuthOnly: true })).rejects.toThrow(
        '该令牌无权访问模型 gpt-4',
      );
      await call(target, owner, 'put', '/api/token/?status_only=true', { id, status: 2 }).expect(200);
      await expect(authenticator.authenticate(`Bearer sk-${key}`, '198.51.100.9', undefined, { tokenAuthOnly: true })).rejects.toThrow(
        '该令牌状态不可用',
      );
    });

    it('checks model limits when a model is given: 403 "该令牌无权访问模型 X"; an empty list allows nothing', async () => {
      const limited = await token(owner, { model_limits_enabled: true, model_limits: 'gpt-4o, gpt-4o-mini' });
      const caller = await authenticator.authenticate(`Bearer sk-${limited.key}`, '127.0.0.1', 'gpt-4o-mini');
      expect([...(caller.token.modelLimits ?? [])]).toEqual(['gpt-4o', 'gpt-4o-mini']);
      expect(await refusal(`Bearer sk-${limited.key}`, '127.0.0.1', 'gpt-4')).toMatchObject({
        status: 403,
        message: '该令牌无权访问模型 gpt-4',
      });
      // Without a model (GET /v1/models) the limits are not a refusal.
      await authenticator.authenticate(`Bearer sk-${limited.key}`, '127.0.0.1');
      const none = await token(owner, { model_limits_enabled: true, model_limits: '' });
      expect(await refusal(`Bearer sk-${none.key}`, '127.0.0.1', 'gpt-4o')).toMatchObject({
        status: 403,
        message: '该令牌无权访问模型 gpt-4o',
      });
    });

    it('uses the token group for routing and pricing, and refuses one that is no longer usable or has no ratio', async () => {
      const { key } = await token(owner, { group: 'vip' });
      expect(await authenticator.authenticate(`Bearer sk-${key}`, '127.0.0.1')).toMatchObject({
        group: 'vip',
        token: { group: 'vip' },
        user: { group: 'default' },
      });
      await setOptions(target, { UserUsableGroups: JSON.stringify({ default: '默认分组' }) });
      expect(await refusal(`Bearer sk-${key}`)).toMatchObject({ status: 403, message: '令牌分组 vip 已被禁用' });
      // The group check is Distribute's: the model-list and billing routes still answer such a token.
      expect(await authenticator.authenticate(`Bearer sk-${key}`, '127.0.0.1', undefined, { tokenAuthOnly: true })).toMatchObject({
        group: 'vip',
      });
      await setOptions(target, {
        UserUsableGroups: JSON.stringify({ default: '默认分组', vip: 'vip分组' }),
        GroupRatio: JSON.stringify({ default: 1 }),
      });
      expect(await refusal(`Bearer sk-${key}`)).toMatchObject({ status: 403, message: '分组 vip 已被弃用' });
      await setOptions(target, { GroupRatio: JSON.stringify({ default: 1, vip: 1, svip: 1 }) });
      expect((await authenticator.authenticate(`Bearer sk-${key}`, '127.0.0.1')).group).toBe('vip');
    });
  });

  describe('cache', () => {
    it('makes no SQL query on a warm call, nor in a process that only has the shared (Redis) copy', async () => {
      const limited = await token(owner, { remain_quota: 500 });
      const unlimited = await token(owner, { unlimited_quota: true });
      for (const { key } of [limited, unlimited]) {
        await authenticator.authenticate(`Bearer sk-${key}`, '127.0.0.1', 'gpt-4o');
        expect(await countQueries(() => authenticator.authenticate(`Bearer sk-${key}`, '127.0.0.1', 'gpt-4o'))).toBe(0);
        cache.clearLocal();
        expect(await countQueries(() => authenticator.authenticate(`Bearer sk-${key}`, '127.0.0.1', 'gpt-4o'))).toBe(0);
      }
      // The cold path does query (so the counter counts).
      cache.clearLocal();
      await target.app.get(TokenAuthCache).tokenChanged(limited);
      expect(await countQueries(() => authenticator.authenticate(`Bearer sk-${limited.key}`, '127.0.0.1'))).toBeGreaterThan(0);
    });

    it('remembers an unknown key briefly instead of querying for it on every request', async () => {
      const header = `Bearer sk-${'Z'.repeat(48)}`;
      await refusal(header);
      expect(await countQueries(() => refusal(header))).toBe(0);
    });

    it('sees every token change at once: edit, disable, enable, delete', async () => {
      const { id, key } = await token(owner, { name: 'live' });
      await authenticator.authenticate(`Bearer sk-${key}`, '127.0.0.1', 'gpt-4o');
      await call(target, owner, 'put', '/api/token/', { id, name: 'live', model_limits_enabled: true, model_limits: 'claude-3' }).expect(
        200,
      );
      expect(await refusal(`Bearer sk-${key}`, '127.0.0.1', 'gpt-4o')).toMatchObject({ status: 403, message: '该令牌无权访问模型 gpt-4o' });
      await call(target, owner, 'put', '/api/token/', { id, allow_ips: '198.51.100.1' }).expect(200);
      expect(await refusal(`Bearer sk-${key}`, '127.0.0.1')).toMatchObject({ status: 403 });
      await call(target, owner, 'put', '/api/token/', { id, allow_ips: '' }).expect(200);
      await call(target, owner, 'put', '/api/token/?status_only=true', { id, status: 2 }).expect(200);
      expect(await refusal(`Bearer sk-${key}`)).toMatchObject({ status: 401, message: '该令牌状态不可用' });
      await call(target, owner, 'put', '/api/token/?status_only=true', { id, status: 1 }).expect(200);
      expect((await authenticator.authenticate(`Bearer sk-${key}`, '127.0.0.1')).token.id).toBe(id);
      await call(target, owner, 'delete', `/api/token/${id}`).expect(200, { success: true, message: '' });
      expect(await refusal(`Bearer sk-${key}`)).toMatchObject({ status: 401, message: '无效的令牌' });
      cache.clearLocal();
      expect(await refusal(`Bearer sk-${key}`)).toMatchObject({ status: 401, message: '无效的令牌' });
    });

    it('sees a quota allotment at once: an exhausted token works again after its quota is raised and it is enabled', async () => {
      const { id, key } = await token(owner, { remain_quota: 0 });
      await refusal(`Bearer sk-${key}`);
      expect(await status(id)).toBe(4);
      await call(target, owner, 'put', '/api/token/', { id, remain_quota: 50 }).expect(200);
      expect((await call(target, owner, 'put', '/api/token/?status_only=true', { id, status: 1 }).expect(200)).body.success).toBe(true);
      expect((await authenticator.authenticate(`Bearer sk-${key}`, '127.0.0.1')).token.id).toBe(id);
      expect((await target.app.get(QuotaAdmissionService).available(owner.id, id)).token).toBe(50);
    });
  });
});
