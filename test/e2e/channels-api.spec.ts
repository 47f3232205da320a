import { ProjectionRunner } from '../../projections/src/runner/projection-runner';
import { deterministicEventId } from '../../server/src/ledger/event-ids';
import { newEvent, systemActor } from '../../server/src/ledger/event-envelope';
import { accountStream, channelStream } from '../../server/src/ledger/streams';
import { ChangeChannelStatusCommand } from '../../server/src/modules/channels/usecases/change-channel-status/change-channel-status.command';
import { ChannelRouter } from '../../server/src/modules/channels/routing/channel-router';
import { CommandBus } from '@nestjs/cqrs';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { CHANNEL_OUTCOMES_QUEUE, ChannelOutcomeReporter } from '../../server/src/modules/channel-health';
import { createTestApp, type TestApp } from '../support/app';
import { compareTables, snapshotTables } from '../support/compare-tables';
import { HttpFake, sendJson } from '../fakes/http-fake';
import { call, type Caller, changedRows, dataSource, eventStore, projected, rootCaller, seedCaller, tablesSnapshot } from './users-support';

/** Channel management (console-api-behaviour.md §12, spec 1 §5 and §7), the model lists and the channel router. */
describe('channels API', () => {
  let target: TestApp;
  let root: Caller;
  let admin: Caller;
  let common: Caller;
  let upstream: HttpFake;

  const form = (overrides: Record<string, unknown> = {}) => ({
    type: 1,
    name: 'main',
    key: 'sk-upstream-1',
    models: 'gpt-4o,gpt-4o-mini',
    group: 'default',
    base_url: '',
    other: '',
    model_mapping: '',
    auto_ban: 1,
    groups: ['default'],
    ...overrides,
  });

  /** Creates channels through the API and answers their ids (newest last). */
  async function create(overrides: Record<string, unknown> = {}): Promise<number[]> {
    const before = await maxId();
    const response = await call(target, admin, 'post', '/api/channel/', form(overrides));
    expect(response.body).toEqual({ success: true, message: '' });
    const rows: Array<{ id: number }> = await dataSource(target).query('SELECT id FROM channels WHERE id > $1 ORDER BY id', [before]);
    return rows.map((row) => row.id);
  }

  async function maxId(): Promise<number> {
    const rows: Array<{ max: number | null }> = await dataSource(target).query('SELECT max(id)::int AS max FROM channels');
    return rows[0].max ?? 0;
  }

  const router = () => target.app.get(ChannelRouter);
  const getChannel = async (id: number) => (await call(target, admin, 'get', `/api/channel/${id}`)).body.data;
  /** What the health rules do to a channel whose key was revoked (a 401), with its reason. */
  const autoDisable = (channelId: number) =>
    target.app.get(CommandBus).execute(
      new ChangeChannelStatusCommand({
        channelId,
        command: { type: 'AutoDisableChannel', reasonCode: 'upstream_unauthorized', message: 'Incorrect API key', evidence: { status: 401 } },
        reasonCode: 'upstream_unauthorized',
        correlationId: 'test',
        actor: systemActor(),
        clientIp: null,
      }),
    );
  const abilities = (id: number) =>
    dataSource(target).query('SELECT "group", model, enabled, priority::int AS priority, weight FROM abilities WHERE channel_id = $1 ORDER BY 1, 2', [id]);

  beforeAll(async () => {
    target = await createTestApp();
    root = await rootCaller(target);
    admin = await seedCaller(target, { role: 10, username: 'chadmin' });
    common = await seedCaller(target, { role: 1, username: 'chuser' });
    upstream = await new HttpFake((request, response) => {
      if (request.method !== 'GET' || request.url !== '/v1/models') return sendJson(response, 404, { error: { message: 'not found' } });
      if (request.headers.authorization !== 'Bearer sk-good') {
        return sendJson(response, 401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
      }
      sendJson(response, 200, { object: 'list', data: [{ id: 'gpt-4o', object: 'model' }, { id: 'o1-mini', object: 'model' }] });
    }).start();
  });
  afterAll(async () => {
    await upstream.close();
    await target.close();
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

    it('refuses ordinary users with the reference message (HTTP 200) and anonymous callers with 401, changing nothing', async () => {
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
    it('creates a channel with the reference defaults and its routing rows', async () => {
      const [id] = await create({ name: 'defaults', group: '', auto_ban: undefined, base_url: 'https://api.example.com//', models: 'a, b,,a' });
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
      const keys = await dataSource(target).query('SELECT key FROM channels WHERE id = ANY($1::int[]) ORDER BY id', [ids]);
      expect(keys.map((row: { key: string }) => row.key)).toEqual(['k-1', 'k-2', 'k-3']);
      const vertex = await create({ type: 41, name: 'vertex', key: '{"type":"service_account",\n"project_id":"p"}', other: '{"default":"us-central1"}' });
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
        expect([JSON.stringify(body).slice(0, 80), response.status, response.body.success]).toEqual([JSON.stringify(body).slice(0, 80), 200, false]);
        if (typeof body !== 'string') expect([JSON.stringify(body).slice(0, 80), response.body.message]).toEqual([JSON.stringify(body).slice(0, 80), message]);
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
        ids.push(...(await create({ name: `list-${i}`, key: `key-${i}`, priority: i % 3, models: i % 2 ? 'odd-model,shared' : 'even-model,shared', group: i < 4 ? 'vip' : 'default,svip' })));
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

    it('searches by id, name or exact key, filtered by model and group, key hidden', async () => {
      const search = async (query: string) =>
        (await call(target, admin, 'get', `/api/channel/search?${query}`)).body.data.map((channel: { id: number; key: string }) => {
          expect(channel.key).toBe('');
          return channel.id;
        });
      expect(await search(`keyword=${ids[3]}`)).toEqual([ids[3]]);
      expect((await search('keyword=list-1')).sort()).toEqual([ids[1], ids[10], ids[11]].sort());
      expect(await search('keyword=key-7')).toEqual([ids[7]]);
      expect(await search('keyword=key-')).toEqual([]);
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
    it('changes only the fields sent non-empty, keeps the key when none is sent, and answers the channel with its key', async () => {
      const [id] = await create({ name: 'editable', key: 'keep-me', weight: 5, priority: 3, test_model: 'gpt-4o-mini' });
      const response = await call(target, admin, 'put', '/api/channel/', { id, name: 'edited', key: '', models: '', weight: 0, base_url: 'http://x/' });
      expect(response.body).toMatchObject({ success: true, message: '', data: { id, name: 'edited', key: 'keep-me', weight: 0, priority: 3, base_url: 'http://x', models: 'gpt-4o,gpt-4o-mini', test_model: 'gpt-4o-mini' } });
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

  describe('deletes and fix', () => {
    it('saves the edit form of an auto-disabled channel (status 3 sent back unchanged) without enabling it', async () => {
      const [id] = await create({ name: 'auto-edit', key: 'revoked-key' });
      await autoDisable(id);
      // The console loads the channel and sends the whole object back, status 3 included, with a new key.
      const loaded = await getChannel(id);
      expect(loaded.status).toBe(3);
      const saved = await call(target, admin, 'put', '/api/channel/', { ...loaded, key: 'fresh-key' });
      expect(saved.body).toMatchObject({ success: true });
      const after = await getChannel(id);
      expect(after.status).toBe(3);
      expect(JSON.parse(after.other_info)).toMatchObject({ status_reason: 'Incorrect API key' });
      const [{ key }] = await dataSource(target).query('SELECT key FROM channels WHERE id = $1', [id]);
      expect(key).toBe('fresh-key');
      expect(router().get(id)?.status).not.toBe(1);
      // Moving an enabled channel to 3 stays the automatic rules' business.
      const [other] = await create({ name: 'auto-edit-2' });
      expect((await call(target, admin, 'put', '/api/channel/', { id: other, status: 3 })).body).toEqual({ success: false, message: '无效的参数' });
    });

    it('deletes one channel (trailing slash too), and an unknown id succeeds with nothing deleted', async () => {
      const [a, b] = await create({ name: 'del', key: 'a\nb' });
      expect((await call(target, admin, 'delete', `/api/channel/${a}`)).body).toEqual({ success: true, message: '' });
      expect((await call(target, admin, 'delete', `/api/channel/${b}/`)).body).toEqual({ success: true, message: '' });
      expect(await dataSource(target).query('SELECT id FROM channels WHERE id IN ($1, $2)', [a, b])).toEqual([]);
      expect(await abilities(a)).toEqual([]);
      expect(router().get(a)).toBeNull();
      expect((await call(target, admin, 'delete', '/api/channel/999999')).body).toEqual({ success: true, message: '' });
      expect((await call(target, admin, 'delete', '/api/channel/abc')).body).toEqual({ success: false, message: '无效的参数' });
    });

    it('deletes every manually or automatically disabled channel and answers the count', async () => {
      const [on, manual, auto] = await create({ name: 'disabled-set', key: 'x\ny\nz' });
      await call(target, admin, 'put', '/api/channel/', { id: manual, status: 2 });
      await autoDisable(auto);
      const autoView = await getChannel(auto);
      expect(autoView.status).toBe(3);
      expect(JSON.parse(autoView.other_info)).toEqual({ status_reason: 'Incorrect API key', status_time: expect.any(Number) });
      const disabledBefore = await dataSource(target).query('SELECT count(*)::int AS n FROM channel_status WHERE status IN (2, 3) AND channel_id IN (SELECT id FROM channels)');
      const response = await call(target, admin, 'delete', '/api/channel/disabled');
      expect(response.body).toEqual({ success: true, message: '', data: disabledBefore[0].n });
      expect(response.body.data).toBeGreaterThanOrEqual(2);
      const left = await dataSource(target).query('SELECT id FROM channels WHERE id = ANY($1::int[])', [[on, manual, auto]]);
      expect(left).toEqual([{ id: on }]);
    });

    it('batch-deletes the selected channels, answering the count, and needs a selection', async () => {
      const ids = await create({ name: 'batch-del', key: 'p\nq\nr\ns\nt\nu' });
      const response = await call(target, admin, 'post', '/api/channel/batch', { ids: [ids[0], ids[1], ids[1], 999999] });
      expect(response.body).toEqual({ success: true, message: '', data: 2 });
      expect(await dataSource(target).query('SELECT id FROM channels WHERE id = ANY($1::int[]) ORDER BY id', [ids])).toEqual(ids.slice(2).map((id) => ({ id })));
      // Any count, not only two (the handler once answered the length of TypeORM's [rows, count] pair, always 2).
      expect((await call(target, admin, 'post', '/api/channel/batch', { ids: ids.slice(3) })).body).toEqual({ success: true, message: '', data: 3 });
      expect(await dataSource(target).query('SELECT id FROM channels WHERE id = ANY($1::int[])', [ids])).toEqual([{ id: ids[2] }]);
      const before = await tablesSnapshot(target);
      expect((await call(target, admin, 'post', '/api/channel/batch', { ids: [] })).body).toEqual({ success: false, message: '请先选择要删除的通道！' });
      expect((await call(target, admin, 'post', '/api/channel/batch', {})).body).toEqual({ success: false, message: '请先选择要删除的通道！' });
      expect((await call(target, admin, 'post', '/api/channel/batch', { ids: ['1'] })).body).toEqual({ success: false, message: '无效的参数' });
      expect(changedRows(before, await tablesSnapshot(target))).toEqual({});
    });

    it('fix rebuilds the routing rows of channels whose rows are missing or stale and answers how many', async () => {
      const [broken, stale] = await create({ name: 'fixme', key: 'f1\nf2', models: 'fix-a,fix-b' });
      expect((await call(target, admin, 'post', '/api/channel/fix')).body).toEqual({ success: true, message: '', data: 0 });
      const expected = await abilities(broken);
      await dataSource(target).query('DELETE FROM abilities WHERE channel_id = $1', [broken]);
      await dataSource(target).query('UPDATE abilities SET enabled = false WHERE channel_id = $1', [stale]);
      expect((await call(target, admin, 'post', '/api/channel/fix')).body).toEqual({ success: true, message: '', data: 2 });
      expect(await abilities(broken)).toEqual(expected);
      expect((await abilities(stale)).every((row: { enabled: boolean }) => row.enabled)).toBe(true);
    });
  });

  describe('model lists', () => {
    it('GET /api/models maps channel types to their built-in models', async () => {
      const response = await call(target, common, 'get', '/api/models');
      expect(Object.keys(response.body).sort()).toEqual(['data', 'message', 'success']);
      expect(response.body.data['1']).toEqual(expect.arrayContaining(['gpt-4o', 'gpt-3.5-turbo', 'text-embedding-3-small']));
      expect(response.body.data['14']).toEqual(expect.arrayContaining(['claude-3-5-sonnet-20240620']));
      expect(response.body.data['24']).toEqual(expect.arrayContaining(['gemini-1.5-pro-latest']));
    });

    it('GET /api/channel/models lists every built-in model once as an OpenAI model object', async () => {
      const response = await call(target, admin, 'get', '/api/channel/models');
      expect(Object.keys(response.body).sort()).toEqual(['data', 'message', 'success']);
      const ids = response.body.data.map((model: { id: string }) => model.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(response.body.data.find((model: { id: string }) => model.id === 'gpt-4o')).toMatchObject({
        object: 'model', created: 1626777600, owned_by: 'openai', root: 'gpt-4o', parent: null, permission: [expect.objectContaining({ object: 'model_permission' })],
      });
      expect(response.body.data.find((model: { id: string }) => model.id === 'mj_imagine')).toMatchObject({ owned_by: 'midjourney' });
    });

    it('GET /api/user/models lists the models enabled channels serve in the caller\'s own group', async () => {
      const [vipOnly] = await create({ name: 'vip-only', models: 'vip-model', group: 'vip' });
      const [shared] = await create({ name: 'for-default', models: 'default-model-a,default-model-b', group: 'default,vip' });
      const [off] = await create({ name: 'off-default', models: 'hidden-model', group: 'default', status: 2 });
      const models: string[] = (await call(target, common, 'get', '/api/user/models')).body.data;
      expect(models).toEqual(expect.arrayContaining(['default-model-a', 'default-model-b']));
      expect(models).not.toContain('vip-model');
      expect(models).not.toContain('hidden-model');
      await dataSource(target).query(`UPDATE users SET "group" = 'vip' WHERE id = $1`, [common.id]);
      const vip: string[] = (await call(target, common, 'get', '/api/user/models')).body.data;
      expect(vip).toEqual(expect.arrayContaining(['vip-model', 'default-model-a']));
      await dataSource(target).query(`UPDATE users SET "group" = 'default' WHERE id = $1`, [common.id]);
      expect([vipOnly, shared, off].every((id) => id > 0)).toBe(true);
    });
  });

  describe('fetch_models', () => {
    it('reads the upstream\'s /v1/models with the channel key', async () => {
      const [good] = await create({ name: 'fetch', key: 'sk-good', base_url: `${upstream.baseUrl}/` });
      const response = await call(target, admin, 'get', `/api/channel/fetch_models/${good}`);
      expect(response.body).toEqual({ success: true, message: '', data: ['gpt-4o', 'o1-mini'] });
      expect(upstream.requests.at(-1)).toMatchObject({ method: 'GET', url: '/v1/models', headers: expect.objectContaining({ authorization: 'Bearer sk-good' }) });
    });

    it('with the creation form\'s key (POST), and refuses other types, a bad key or an unreachable upstream', async () => {
      const posted = await call(target, admin, 'post', '/api/channel/fetch_models', { type: 1, base_url: upstream.baseUrl, key: 'sk-good' });
      expect(posted.body).toEqual({ success: true, message: '', data: ['gpt-4o', 'o1-mini'] });
      expect((await call(target, admin, 'post', '/api/channel/fetch_models', { type: 14, base_url: upstream.baseUrl, key: 'k' })).body).toEqual({
        success: false,
        message: '仅支持 OpenAI 接口格式',
      });
      expect((await call(target, admin, 'post', '/api/channel/fetch_models', { type: 1, base_url: upstream.baseUrl, key: '' })).body.success).toBe(false);
      const [bad] = await create({ name: 'fetch-bad', key: 'sk-bad', base_url: upstream.baseUrl });
      const refused = await call(target, admin, 'get', `/api/channel/fetch_models/${bad}`);
      expect(refused.body).toEqual({ success: false, message: '获取模型列表失败: HTTP 401 Incorrect API key provided' });
      const [gone] = await create({ name: 'fetch-gone', key: 'sk-good', base_url: 'http://127.0.0.1:1' });
      const unreachable = await call(target, admin, 'get', `/api/channel/fetch_models/${gone}`);
      expect(unreachable.body.success).toBe(false);
      expect(unreachable.body.message).toMatch(/^获取模型列表失败: upstream unreachable/);
      expect((await call(target, admin, 'get', '/api/channel/fetch_models/999999')).body).toEqual({ success: false, message: '渠道不存在' });
    });
  });

  describe('channel status projection', () => {
    it('folds tests, balances, automatic decisions and relay charges; a rebuild equals the live table', async () => {
      const [id, other] = await create({ name: 'projected', key: 'u\nv', models: 'proj-model' });
      const bus = target.app.get(CommandBus);
      const base = { correlationId: 'c', actor: systemActor(), clientIp: null };
      await bus.execute(new ChangeChannelStatusCommand({ ...base, channelId: id, command: { type: 'RecordChannelTest', ok: true, responseTimeMs: 1234, model: 'proj-model', error: null }, reasonCode: 'channel_test' }));
      await bus.execute(new ChangeChannelStatusCommand({ ...base, channelId: id, command: { type: 'RecordChannelBalance', balance: 17.25 }, reasonCode: 'balance_refresh' }));
      await bus.execute(
        new ChangeChannelStatusCommand({ ...base, channelId: other, command: { type: 'AutoDisableChannel', reasonCode: 'upstream_unauthorized', message: 'bad key', evidence: { status: 401 } }, reasonCode: 'upstream_unauthorized' }),
      );
      expect(router().select('default', 'proj-model')?.id).toBe(id);
      await bus.execute(
        new ChangeChannelStatusCommand({ ...base, channelId: other, command: { type: 'AutoEnableChannel', reasonCode: 'test_passed', message: '', evidence: {} }, reasonCode: 'test_passed' }),
      );
      for (const [i, channelId, quota] of [[1, id, 300], [2, id, 25], [3, other, 7]] as const) {
        await eventStore(target).appendToStream(
          accountStream(common.id),
          [newEvent('QuotaConsumed', { requestId: `r-${i}`, userId: common.id, tokenId: 0, channelId, quota, tokenUnlimited: true, username: 'chuser', quotaDisplay: { inCurrency: true, quotaPerUnit: 500000 } }, {
            id: deterministicEventId('relay-request', `channels-spec-${i}`),
            metadata: { correlationId: `r-${i}`, actor: systemActor(), reasonCode: 'relay' },
          })],
          { expectedRevision: 'any' },
        );
      }
      await projected(target);
      expect(await getChannel(id)).toMatchObject({ status: 1, response_time: 1234, balance: 17.25, used_quota: 325 });
      expect((await getChannel(id)).test_time).toBeGreaterThan(0);
      const otherView = await getChannel(other);
      expect(otherView).toMatchObject({ status: 1, used_quota: 7 });
      expect(JSON.parse(otherView.other_info).status_reason).toBe('');
      const live = await snapshotTables(dataSource(target), ['channel_status']);
      await target.app.get(ProjectionRunner).rebuild({ projections: ['channel-status'] });
      const comparison = await compareTables(live, dataSource(target), ['channel_status']);
      expect(comparison.summary).toMatch(/^equal/);
      expect(root.id).toBeGreaterThan(0);
    });
  });

  describe('ChannelOutcomeReporter', () => {
    it('queues each outcome on channel-outcomes without waiting, and never throws when Redis refuses', async () => {
      const [id] = await create({ name: 'reported' });
      const queue = target.app.get<Queue>(getQueueToken(CHANNEL_OUTCOMES_QUEUE));
      const reporter = target.app.get(ChannelOutcomeReporter);
      const seen = async () => {
        const counts = await queue.getJobCounts('completed', 'waiting', 'active', 'failed', 'delayed');
        return Object.values(counts).reduce((sum, count) => sum + count, 0);
      };
      const before = await seen();
      expect(reporter.report({ channelId: id, ok: true, status: 200, errorCode: null, message: '', source: 'relay' })).toBeUndefined();
      const deadline = Date.now() + 5000;
      while ((await seen()) === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await seen()).toBe(before + 1);
      const add = jest.spyOn(queue, 'add').mockRejectedValueOnce(new Error('redis down'));
      expect(() => reporter.report({ channelId: id, ok: false, status: 500, errorCode: null, message: 'x', source: 'relay' })).not.toThrow();
      expect(add).toHaveBeenCalledTimes(1);
      add.mockRestore();
    });
  });
});
