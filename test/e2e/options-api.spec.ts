import { DataSource } from 'typeorm';
import { OPTION_DEFAULTS } from '#server/modules/options/option-defaults';
import { DEFAULT_MODEL_RATIO } from '#server/modules/options/pricing-defaults';
import { OptionsService } from '#server/modules/options/options.service';
import { createTestApp, type TestApp } from '../support/app';
import { seedUser, type SeededUser } from '../support/users';

/** GET/PUT /api/option/ and POST /api/option/rest_model_ratio: root only; a bad value is refused before it is saved. */
describe('options API', () => {
  let target: TestApp;
  let dataSource: DataSource;
  let root: SeededUser;

  beforeAll(async () => {
    target = await createTestApp();
    dataSource = target.app.get(DataSource);
    root = await seedUser(dataSource, { role: 100 });
  });
  afterAll(async () => {
    await target.close();
  });

  const asRoot = () => ({ Authorization: root.accessToken });
  const put = (body: unknown) =>
    target
      .http()
      .put('/api/option/')
      .set(asRoot())
      .send(body as object);
  const list = async (): Promise<Record<string, string>> => {
    const response = await target.http().get('/api/option/').set(asRoot()).expect(200);
    expect(response.body.success).toBe(true);
    return Object.fromEntries((response.body.data as Array<{ key: string; value: string }>).map(({ key, value }) => [key, value]));
  };
  const storedRows = async (): Promise<Record<string, string>> => {
    const rows: Array<{ key: string; value: string }> = await dataSource.query('SELECT key, value FROM options ORDER BY key');
    return Object.fromEntries(rows.map(({ key, value }) => [key, value]));
  };

  describe('GET /api/option/', () => {
    it('lists every option with its default, in the {key, value} shape, with or without the trailing slash', async () => {
      const response = await target.http().get('/api/option').set(asRoot()).expect(200);
      expect(response.body).toMatchObject({ success: true, message: '' });
      for (const entry of response.body.data) expect(Object.keys(entry).sort()).toEqual(['key', 'value']);
      const options = await list();
      expect(options.SystemName).toBe('New API');
      expect(options.QuotaPerUnit).toBe('500000');
      expect(JSON.parse(options.ModelRatio)).toEqual(DEFAULT_MODEL_RATIO);
    });

    it('never lists keys ending in Token, Secret or Key, even once saved', async () => {
      for (const key of ['SMTPToken', 'GitHubClientSecret', 'EpayKey', 'TurnstileSecretKey', 'TurnstileSiteKey', 'WorkerValidKey']) {
        await put({ key, value: `secret-${key}` }).expect(200);
      }
      const response = await target.http().get('/api/option/').set(asRoot()).expect(200);
      const keys = (response.body.data as Array<{ key: string }>).map((entry) => entry.key);
      expect(keys.filter((key) => /(Token|Secret|Key)$/.test(key))).toEqual([]);
      expect(JSON.stringify(response.body)).not.toContain('secret-');
      // Stored encrypted at rest (secrets-at-rest.spec.ts); the live map holds the plain value.
      expect((await storedRows()).SMTPToken).toMatch(/^enc:v1:/);
      expect(target.app.get(OptionsService).get('SMTPToken')).toBe('secret-SMTPToken');
    });
  });

  describe('PUT /api/option/', () => {
    it('saves a string value, applies it at once and answers the new-api envelope', async () => {
      const response = await put({ key: 'SystemName', value: 'Tollgate' }).expect(200);
      expect(response.body).toEqual({ success: true, message: '' });
      expect((await list()).SystemName).toBe('Tollgate');
      expect((await storedRows()).SystemName).toBe('Tollgate');
      const status = await target.http().get('/api/status').expect(200);
      expect(status.body.data.system_name).toBe('Tollgate');
    });

    it('accepts numbers and booleans and stores them as strings (fix of the new-api 400)', async () => {
      await put({ key: 'QuotaForNewUser', value: 2500 }).expect(200, { success: true, message: '' });
      await put({ key: 'DrawingEnabled', value: false }).expect(200, { success: true, message: '' });
      await put({ key: 'Price', value: 7.5 }).expect(200, { success: true, message: '' });
      expect(await storedRows()).toMatchObject({ QuotaForNewUser: '2500', DrawingEnabled: 'false', Price: '7.5' });
    });

    it('accepts unknown keys and lists them, as new-api does', async () => {
      await put({ key: 'CheckSensitiveOnCompletionEnabled', value: 'true' }).expect(200, { success: true, message: '' });
      await put({ key: 'MyCustomNote', value: 'hello' }).expect(200, { success: true, message: '' });
      expect(await list()).toMatchObject({ CheckSensitiveOnCompletionEnabled: 'true', MyCustomNote: 'hello' });
    });

    it('stores text verbatim, injection strings included', async () => {
      const value = `<img src=x onerror=alert(1)>'); DELETE FROM options; --`;
      await put({ key: 'Notice', value }).expect(200);
      expect((await storedRows()).Notice).toBe(value);
      expect((await target.http().get('/api/notice').expect(200)).body).toEqual({ success: true, message: '', data: value });
    });

    it('trims trailing slashes from the addresses', async () => {
      for (const key of ['ServerAddress', 'WorkerUrl', 'PayAddress', 'WeChatServerAddress']) {
        await put({ key, value: 'https://gateway.example.com/' }).expect(200);
        expect((await storedRows())[key]).toBe('https://gateway.example.com');
      }
      expect((await target.http().get('/api/status').expect(200)).body.data.server_address).toBe('https://gateway.example.com');
    });

    describe('bodies that cannot be decoded: HTTP 400 "无效的参数", nothing saved', () => {
      it.each([
        ['an array', [{ key: 'SystemName', value: 'x' }]],
        ['a string', '"SystemName"'],
        ['a number', 5],
        ['null', null],
        ['a missing key', { value: 'x' }],
        ['a missing value', { key: 'SystemName' }],
        ['a numeric key', { key: 5, value: 'x' }],
        ['an object value', { key: 'SystemName', value: { a: 1 } }],
        ['an array value', { key: 'SystemName', value: ['x'] }],
        ['a null value', { key: 'SystemName', value: null }],
      ])('%s', async (_, body) => {
        const before = await storedRows();
        const response = await target
          .http()
          .put('/api/option/')
          .set(asRoot())
          .set('Content-Type', 'application/json')
          .send(JSON.stringify(body));
        expect(response.status).toBe(400);
        expect(response.body).toEqual({ success: false, message: '无效的参数' });
        expect(await storedRows()).toEqual(before);
      });

      it('malformed JSON', async () => {
        const before = await storedRows();
        const response = await target
          .http()
          .put('/api/option')
          .set(asRoot())
          .set('Content-Type', 'application/json')
          .send('{"key": "SystemName", "value": ');
        expect(response.status).toBe(400);
        expect(response.body).toEqual({ success: false, message: '无效的参数' });
        expect(await storedRows()).toEqual(before);
      });

      it('keeps the shared answer for malformed JSON on other routes (only this route has the new-api 400)', async () => {
        const response = await target
          .http()
          .post('/api/option/rest_model_ratio')
          .set(asRoot())
          .set('Content-Type', 'application/json')
          .send('{');
        expect(response.status).toBe(200);
        expect(response.body.success).toBe(false);
      });
    });

    it('refuses a key that is not an option name, saving nothing', async () => {
      const before = await storedRows();
      for (const key of ['', "x'; DROP TABLE options; --", '1abc', 'a'.repeat(65), 'Path/../x']) {
        const response = await put({ key, value: 'x' }).expect(200);
        expect(response.body.success).toBe(false);
        expect(response.body.message).toMatch(/^无效的参数：选项名/);
      }
      expect(await storedRows()).toEqual(before);
    });

    it('refuses an over-long value', async () => {
      const response = await put({ key: 'HomePageContent', value: 'x'.repeat(1_000_001) }).expect(200);
      expect(response.body).toEqual({ success: false, message: 'HomePageContent 的值过长（最多 1000000 个字符）' });
    });

    describe('enable guards', () => {
      it.each([
        [
          'GitHubOAuthEnabled',
          '无法启用 GitHub OAuth，请先填入 GitHub Client Id 以及 GitHub Client Secret！',
          'GitHubClientId',
          'client-id',
        ],
        ['WeChatAuthEnabled', '无法启用微信登录，请先填入微信登录相关配置信息！', 'WeChatServerAddress', 'https://wx.example.com'],
        ['TurnstileCheckEnabled', '无法启用 Turnstile 校验，请先填入 Turnstile 校验相关配置信息！', 'TurnstileSiteKey', 'site-key'],
        ['EmailDomainRestrictionEnabled', '无法启用邮箱域名限制，请先填入限制的邮箱域名！', 'EmailDomainWhitelist', 'example.com'],
      ])('%s needs its settings first', async (key, message, needed, value) => {
        await put({ key: needed, value: '' }).expect(200);
        await put({ key, value: 'true' }).expect(200, { success: false, message });
        expect((await storedRows())[key]).toBeUndefined();
        await put({ key: needed, value }).expect(200, { success: true, message: '' });
        await put({ key, value: true }).expect(200, { success: true, message: '' });
        await put({ key, value: 'false' }).expect(200, { success: true, message: '' });
      });
    });

    describe('validation leaves the previous value live and stored', () => {
      it.each([
        ['ModelRatio', '{"gpt-4": 15,', /^ModelRatio 不是合法的 JSON 字符串：/],
        ['ModelPrice', '[1]', /^ModelPrice 必须是 JSON 对象/],
        ['CompletionRatio', '{"gpt-4": -2}', /^CompletionRatio 中 "gpt-4" 的值必须是不小于 0 的数字$/],
        ['GroupRatio', '{"vip": "2"}', /^GroupRatio 中 "vip" 的值必须是不小于 0 的数字$/],
        ['TopupGroupRatio', 'not json', /^TopupGroupRatio 不是合法的 JSON 字符串：/],
        ['UserUsableGroups', '{"vip": 1}', /^UserUsableGroups 中 "vip" 的描述必须是字符串$/],
        ['DataExportInterval', '0', /^DataExportInterval 必须是不小于 1 的整数$/],
        ['ChannelDisableThreshold', '-1', /^ChannelDisableThreshold 必须是不小于 0 的数字$/],
        ['QuotaRemindThreshold', '-1', /^QuotaRemindThreshold 必须是不小于 0 的整数$/],
        ['QuotaForNewUser', 'lots', /^QuotaForNewUser 必须是不小于 0 的整数$/],
        ['QuotaForInviter', -1, /^QuotaForInviter 必须是不小于 0 的整数$/],
        ['QuotaForInvitee', '1.5', /^QuotaForInvitee 必须是不小于 0 的整数$/],
        ['PreConsumedQuota', '-500', /^PreConsumedQuota 必须是不小于 0 的整数$/],
        ['Price', '-1', /^Price 必须是不小于 0 的数字$/],
        ['MinTopUp', 0, /^MinTopUp 必须是不小于 1 的整数$/],
        ['RetryTimes', '-1', /^RetryTimes 必须是不小于 0 的整数$/],
        ['DrawingEnabled', 'yes', /^DrawingEnabled 的值必须是 true 或 false$/],
        ['ServerAddress', 'gateway.example.com', /^ServerAddress 必须是以 http:\/\/ 或 https:\/\/ 开头的地址$/],
        ['DataExportDefaultTime', 'month', /^DataExportDefaultTime 必须是 hour、day、week 之一$/],
      ])('%s = %j', async (key, value, message) => {
        const liveBefore = (await list())[key];
        const storedBefore = await storedRows();
        const response = await put({ key, value }).expect(200);
        expect(response.body.success).toBe(false);
        expect(response.body.message).toMatch(message);
        expect((await list())[key]).toBe(liveBefore);
        expect(await storedRows()).toEqual(storedBefore);
      });

      it('keeps relying on the previous GroupRatio after a bad one (new-api wiped it)', async () => {
        await put({ key: 'GroupRatio', value: '{"default":1,"vip":2}' }).expect(200, { success: true, message: '' });
        await put({ key: 'GroupRatio', value: '{"default":1,' }).expect(200);
        const groups = await target.http().get('/api/group/').set(asRoot()).expect(200);
        expect(groups.body.data.sort()).toEqual(['default', 'vip']);
      });
    });
  });

  describe('POST /api/option/rest_model_ratio', () => {
    it('restores the built-in ModelRatio only', async () => {
      await put({ key: 'ModelRatio', value: '{"only-model": 3}' }).expect(200, { success: true, message: '' });
      await put({ key: 'ModelPrice', value: '{"only-price": 1}' }).expect(200, { success: true, message: '' });
      const response = await target.http().post('/api/option/rest_model_ratio').set(asRoot()).expect(200);
      expect(response.body).toEqual({ success: true, message: '重置模型倍率成功' });
      const options = await list();
      expect(JSON.parse(options.ModelRatio)).toEqual(DEFAULT_MODEL_RATIO);
      expect(JSON.parse((await storedRows()).ModelRatio)).toEqual(DEFAULT_MODEL_RATIO);
      expect(options.ModelPrice).toBe('{"only-price": 1}');
      expect(OPTION_DEFAULTS.ModelPrice).not.toBe(options.ModelPrice);
    });
  });

  describe('role matrix (root only)', () => {
    let common: SeededUser;
    let admin: SeededUser;
    let bannedRoot: SeededUser;
    const routes = [
      { method: 'get', path: '/api/option/' },
      { method: 'put', path: '/api/option/', body: { key: 'SystemName', value: 'pwned' } },
      { method: 'post', path: '/api/option/rest_model_ratio' },
    ] as const;

    beforeAll(async () => {
      common = await seedUser(dataSource, { role: 1 });
      admin = await seedUser(dataSource, { role: 10 });
      bannedRoot = await seedUser(dataSource, { role: 100, status: 2 });
    });

    function call(route: (typeof routes)[number], token?: string) {
      let request = target.http()[route.method](route.path);
      if (token) request = request.set('Authorization', token);
      return 'body' in route ? request.send(route.body) : request;
    }

    it.each(routes)(
      '$method $path refuses anonymous, common, admin, banned and unknown-token callers and changes nothing',
      async (route) => {
        const before = await storedRows();
        const anonymous = await call(route);
        expect(anonymous.status).toBe(401);
        expect(anonymous.body).toEqual({ success: false, message: '无权进行此操作，未登录且未提供 access token' });
        for (const user of [common, admin]) {
          const response = await call(route, user.accessToken);
          expect(response.status).toBe(200);
          expect(response.body).toEqual({ success: false, message: '无权进行此操作，权限不足' });
          // Bearer form too
          expect((await call(route, `Bearer ${user.accessToken}`)).body.message).toBe('无权进行此操作，权限不足');
        }
        expect((await call(route, bannedRoot.accessToken)).body).toEqual({ success: false, message: '用户已被封禁' });
        expect((await call(route, 'not-a-token')).body).toEqual({ success: false, message: '无权进行此操作，access token 无效' });
        expect(await storedRows()).toEqual(before);
      },
    );
  });
});
