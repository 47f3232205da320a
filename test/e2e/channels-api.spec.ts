import { channelStream } from '#server/ledger/streams';
import type { TestApp } from '../support/app';
import { channelForm as form, channelsApiFixture, storedChannelKeys } from './channels-api-support';
import { call, type Caller, changedRows, dataSource, eventStore, tablesSnapshot } from './users-support';

/**
 * Channel management as new-api's /api/channel and the console form behave: the role guard, create, list and
 * search, read and edit. Deletes, status and outcomes are in channels-api-status.spec.ts, model lists in channels-api-models.spec.ts.
 */
describe('channels API', () => {
  const fixture = channelsApiFixture();
  const { create, router, getChannel, abilities } = fixture;
  let target: TestApp;
  let admin: Caller;
  let common: Caller;

  beforeAll(() => {
    ({ target, admin, common } = fixture.context);
  });

  describe('role guard', () => {
    const adminRoutes: Array<['get' | 'post' | 'put' | 'delete', string]> = [
      ['get', '/api/channel/?p=0&page_size=10'],
      ['get', '/api/channel/search?keyword=a'],
      ['get', '/api/channel/models'],
      ['get', '/api/channel/1'],
      ['get', '/api/channel/fetch_models/1'],
      ['post', '/api/channel/'],
      ['put', '/api/channel/'],
      ['delete', '/api/channel/disabled'],
      ['delete', '/api/channel/1'],
      ['post', '/api/channel/batch'],
      ['post', '/api/channel/fix'],
    ];

    it('refuses ordinary users with the message new-api gives (HTTP 200) and anonymous callers with 401, changing nothing', async () => {
      await create({ name: 'guarded' });
      const before = await tablesSnapshot(target);
      for (const [method, path] of adminRoutes) {
        const body = method === 'post' || method === 'put' ? form({ id: 1, ids: [1] }) : undefined;
        const asUser = await call(target, common, method, path, body);
        expect([path, asUser.status, asUser.body]).toEqual([path, 200, { success: false, message: '无权进行此操作，权限不足' }]);
        const anonymous = await call(target, null, method, path, body);
        expect([path, anonymous.status, anonymous.body.success]).toEqual([path, 401, false]);
      }
      expect(changedRows(before, await tablesSnapshot(target))).toEqual({});
    });

    it('lets any logged-in user read /api/models and /api/user/models, but not anonymous callers', async () => {
      expect((await call(target, common, 'get', '/api/models')).body.success).toBe(true);
      expect((await call(target, common, 'get', '/api/user/models')).body.success).toBe(true);
      expect((await call(target, null, 'get', '/api/models')).status).toBe(401);
      expect((await call(target, null, 'get', '/api/user/models')).status).toBe(401);
    });
  });

  describe('POST /api/channel/', () => {
    it('creates a channel with the defaults new-api gives and its routing rows', async () => {
      const [id] = await create({
        name: 'defaults',
        group: '',
        auto_ban: undefined,
        base_url: 'https://api.example.com//',
        models: 'a, b,,a',
      });
      const channel = await getChannel(id);
      expect(channel).toMatchObject({
        id,
        type: 1,
        key: '',
        name: 'defaults',
        status: 1,
        group: 'default',
        auto_ban: 1,
        weight: 0,
        priority: 0,
        base_url: 'https://api.example.com',
        models: 'a,b',
        used_quota: 0,
        response_time: 0,
        test_time: 0,
        balance: 0,
        other_info: '',
      });
      expect(channel.created_time).toBeGreaterThan(1_700_000_000);
      expect(await abilities(id)).toEqual([
        { group: 'default', model: 'a', enabled: true, priority: 0, weight: 0 },
        { group: 'default', model: 'b', enabled: true, priority: 0, weight: 0 },
      ]);
    });

    it('creates one channel per non-empty key line (batch add), but keeps a Vertex AI credential whole', async () => {
      const ids = await create({ name: 'batch', key: 'k-1\nk-2\n\n k-3 \n' });
      expect(ids).toHaveLength(3);
      expect(await storedChannelKeys(target, ids)).toEqual(['k-1', 'k-2', 'k-3']);
      const vertex = await create({
        type: 41,
        name: 'vertex',
        key: '{"type":"service_account",\n"project_id":"p"}',
        other: '{"default":"us-central1"}',
      });
      expect(vertex).toHaveLength(1);
    });

    it('applies the Azure and Spark defaults, clamps priority and weight, and starts a channel disabled when asked', async () => {
      const [azure] = await create({ type: 3, name: 'azure', priority: -5000, weight: -3 });
      expect(await getChannel(azure)).toMatchObject({ other: '2023-06-01-preview', priority: -999, weight: 0 });
      const [spark] = await create({ type: 18, name: 'spark', key: 'app|secret|key' });
      expect((await getChannel(spark)).other).toBe('v2.1');
      const [off] = await create({ name: 'starts-off', status: 2, models: 'only-off-model' });
      expect((await getChannel(off)).status).toBe(2);
      expect((await abilities(off)).every((row: { enabled: boolean }) => !row.enabled)).toBe(true);
      expect(router().select('default', 'only-off-model')).toBeNull();
      const events = await eventStore(target).readStream(channelStream(off));
      expect(events.map((event) => [event.type, event.metadata.reasonCode])).toEqual([['ChannelDisabled', 'channel_created_disabled']]);
    });

    it('refuses bad input with the form messages and writes nothing', async () => {
      const cases: Array<[unknown, string]> = [
        [form({ name: '' }), '请填写渠道名称和渠道密钥！'],
        [form({ key: '  ' }), '请填写渠道名称和渠道密钥！'],
        [form({ models: '' }), '请至少选择一个模型！'],
        [form({ models: ' , ,' }), '请至少选择一个模型！'],
        [form({ model_mapping: '{"gpt-4o": ' }), '模型映射必须是合法的 JSON 格式！'],
        [form({ model_mapping: '["gpt-4o"]' }), '模型映射必须是合法的 JSON 格式！'],
        [form({ model_mapping: '{"gpt-4o": 3}' }), '模型映射必须是合法的 JSON 格式！'],
        [form({ status_code_mapping: '{"400": "oops"}' }), '状态码复写必须是合法的 JSON 格式！'],
        [form({ header_override: 'x' }), '请求头覆盖必须是合法的 JSON 格式！'],
        [form({ type: 41, other: '' }), '部署地区不能为空'],
        [form({ type: 41, other: '{"us":"us-central1"}' }), '部署地区必须包含default字段'],
        [form({ type: '1' }), '无效的参数'],
        [form({ type: 999 }), '无效的参数'],
        [form({ weight: 1.5 }), '无效的参数'],
        [form({ weight: 3_000_000_000 }), '无效的参数'],
        [form({ status: 3 }), '无效的参数'],
        [form({ auto_ban: 7 }), '无效的参数'],
        [form({ models: 'x'.repeat(300) }), '无效的参数'],
        [form({ name: 'nul\u0000' }), '无效的参数'],
        [[form()], '无效的参数'],
        ['{"name": "broken', '无效的参数'],
      ];
      const before = await tablesSnapshot(target);
      for (const [body, message] of cases) {
        const response = await call(target, admin, 'post', '/api/channel/', body);
        expect([JSON.stringify(body).slice(0, 80), response.status, response.body.success]).toEqual([
          JSON.stringify(body).slice(0, 80),
          200,
          false,
        ]);
        if (typeof body !== 'string')
          expect([JSON.stringify(body).slice(0, 80), response.body.message]).toEqual([JSON.stringify(body).slice(0, 80), message]);
      }
      expect(changedRows(before, await tablesSnapshot(target))).toEqual({});
    });
  });

  describe('GET /api/channel/ and /api/channel/search', () => {
    let ids: number[];
    beforeAll(async () => {
      await dataSource(target).query('DELETE FROM channels');
      ids = [];
      for (let i = 0; i < 12; i++) {
        ids.push(
          ...(await create({
            name: `list-${i}`,
            key: `key-${i}`,
            priority: i % 3,
            models: i % 2 ? 'odd-model,shared' : 'even-model,shared',
            group: i < 4 ? 'vip' : 'default,svip',
          })),
        );
      }
    });

    it('pages 0-based with page_size, ordered by priority (or id with id_sort), key hidden', async () => {
      const all = await dataSource(target).query('SELECT id FROM channels ORDER BY priority DESC, id DESC');
      const first = await call(target, admin, 'get', '/api/channel/?p=0&page_size=5');
      expect(first.body.success).toBe(true);
      expect(first.body.data.map((channel: { id: number }) => channel.id)).toEqual(all.slice(0, 5).map((row: { id: number }) => row.id));
      expect(first.body.data.every((channel: { key: string }) => channel.key === '')).toBe(true);
      const third = await call(target, admin, 'get', '/api/channel/?p=2&page_size=5');
      expect(third.body.data.map((channel: { id: number }) => channel.id)).toEqual(all.slice(10, 15).map((row: { id: number }) => row.id));
      const byId = await call(target, admin, 'get', '/api/channel/?p=0&page_size=3&id_sort=true');
      expect(byId.body.data.map((channel: { id: number }) => channel.id)).toEqual([...ids].reverse().slice(0, 3));
    });

    it('answers an empty page for a missing or zero page_size, 10 rows for a negative one, page 0 for a bad p', async () => {
      expect((await call(target, admin, 'get', '/api/channel/?p=0')).body).toEqual({ success: true, message: '', data: [] });
      expect((await call(target, admin, 'get', '/api/channel/?p=0&page_size=0')).body.data).toEqual([]);
      expect((await call(target, admin, 'get', '/api/channel/?p=0&page_size=-1')).body.data).toHaveLength(10);
      const bad = await call(target, admin, 'get', '/api/channel/?p=abc&page_size=4');
      expect(bad.body.data).toEqual((await call(target, admin, 'get', '/api/channel/?p=0&page_size=4')).body.data);
      expect((await call(target, admin, 'get', '/api/channel/?p=99&page_size=10')).body.data).toEqual([]);
    });

    it('searches by id, name or (root only) exact key, filtered by model and group, key hidden', async () => {
      const search = async (query: string, caller: Caller = admin) =>
        (await call(target, caller, 'get', `/api/channel/search?${query}`)).body.data.map((channel: { id: number; key: string }) => {
          expect(channel.key).toBe('');
          return channel.id;
        });
      expect(await search(`keyword=${ids[3]}`)).toEqual([ids[3]]);
      expect((await search('keyword=list-1')).sort()).toEqual([ids[1], ids[10], ids[11]].sort());
      expect(await search('keyword=key-7', fixture.context.root)).toEqual([ids[7]]);
      expect(await search('keyword=key-7')).toEqual([]);
      expect(await search('keyword=key-', fixture.context.root)).toEqual([]);
      expect((await search('keyword=&model=odd-model')).length).toBe(6);
      expect((await search('keyword=&group=vip')).sort()).toEqual(ids.slice(0, 4).sort());
      expect((await search('keyword=&group=svip&model=even')).length).toBe(4);
      expect(await search('keyword=%25')).toEqual([]);
      expect(await search('keyword=a%00b')).toEqual([]);
    });
  });

  describe('GET /api/channel/:id', () => {
    it('answers the channel with its key hidden, "渠道不存在" for an unknown id and "无效的参数" for a non-number', async () => {
      const [id] = await create({ name: 'single', key: 'secret-key' });
      const response = await call(target, admin, 'get', `/api/channel/${id}`);
      expect(response.body).toMatchObject({ success: true, message: '', data: { id, name: 'single', key: '' } });
      expect((await call(target, admin, 'get', '/api/channel/999999')).body).toEqual({ success: false, message: '渠道不存在' });
      expect((await call(target, admin, 'get', '/api/channel/99999999999')).body).toEqual({ success: false, message: '渠道不存在' });
      expect((await call(target, admin, 'get', '/api/channel/abc')).body).toEqual({ success: false, message: '无效的参数' });
    });
  });

  describe('PUT /api/channel/', () => {
    it('changes only the fields sent non-empty, keeps the key when none is sent, and answers the channel with its key hidden', async () => {
      const [id] = await create({ name: 'editable', key: 'keep-me', weight: 5, priority: 3, test_model: 'gpt-4o-mini' });
      const response = await call(target, admin, 'put', '/api/channel/', {
        id,
        name: 'edited',
        key: '',
        models: '',
        weight: 0,
        base_url: 'http://x/',
      });
      expect(response.body).toMatchObject({
        success: true,
        message: '',
        data: {
          id,
          name: 'edited',
          key: '',
          weight: 0,
          priority: 3,
          base_url: 'http://x',
          models: 'gpt-4o,gpt-4o-mini',
          test_model: 'gpt-4o-mini',
        },
      });
      expect(await storedChannelKeys(target, [id])).toEqual(['keep-me']);
      expect((await abilities(id)).map((row: { weight: number }) => row.weight)).toEqual([0, 0]);
      const regrouped = await call(target, admin, 'put', '/api/channel/', { id, group: 'vip,default', models: 'm1', priority: -2000 });
      expect(regrouped.body.data).toMatchObject({ group: 'vip,default', models: 'm1', priority: -999 });
      expect(await abilities(id)).toEqual([
        { group: 'default', model: 'm1', enabled: true, priority: -999, weight: 0 },
        { group: 'vip', model: 'm1', enabled: true, priority: -999, weight: 0 },
      ]);
    });

    it('appends ChannelDisabled / ChannelEnabled for a status change, and the router follows', async () => {
      const [id] = await create({ name: 'switch', models: 'switch-model' });
      expect(router().select('default', 'switch-model')?.id).toBe(id);
      const off = await call(target, admin, 'put', '/api/channel/', { id, status: 2 });
      expect(off.body.data).toMatchObject({ id, status: 2, other_info: '' });
      expect(router().select('default', 'switch-model')).toBeNull();
      expect(router().get(id)?.status).toBe(2);
      expect((await abilities(id))[0].enabled).toBe(false);
      // The same status again appends nothing.
      await call(target, admin, 'put', '/api/channel/', { id, status: 2 });
      const on = await call(target, admin, 'put', '/api/channel/', { id, status: 1, priority: 0 });
      expect(on.body.data.status).toBe(1);
      expect(router().select('default', 'switch-model')?.id).toBe(id);
      const events = await eventStore(target).readStream(channelStream(id));
      expect(events.map((event) => event.type)).toEqual(['ChannelDisabled', 'ChannelEnabled']);
      expect(events[0].metadata).toMatchObject({ reasonCode: 'admin_edit', actor: { type: 'user', userId: admin.id, role: 10 } });
    });

    it('refuses bad edits with the documented messages and changes nothing', async () => {
      const [id] = await create({ name: 'guarded-edit' });
      const cases: Array<[unknown, string]> = [
        [{ name: 'x' }, '无效的参数'],
        [{ id: 'x' }, '无效的参数'],
        [{ id: 999999, name: 'x' }, '渠道不存在'],
        [{ id, models: ' , ' }, '请至少选择一个模型！'],
        [{ id, model_mapping: 'nope' }, '模型映射必须是合法的 JSON 格式！'],
        [{ id, status: 3 }, '无效的参数'],
        [{ id, type: 41, other: '' }, '部署地区不能为空'],
        [{ id, weight: -1.5 }, '无效的参数'],
      ];
      const before = await tablesSnapshot(target);
      for (const [body, message] of cases) {
        const response = await call(target, admin, 'put', '/api/channel/', body);
        expect([JSON.stringify(body), response.body]).toEqual([JSON.stringify(body), { success: false, message }]);
      }
      expect(changedRows(before, await tablesSnapshot(target))).toEqual({});
    });
  });
});
