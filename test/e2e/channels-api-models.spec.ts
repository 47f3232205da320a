import { HttpFake, sendJson } from '../fakes/http-fake';
import type { TestApp } from '../support/app';
import { channelsApiFixture } from './channels-api-support';
import { call, type Caller, dataSource } from './users-support';

/** Channels API: the model lists (built-in, per channel type, per user group) and fetch_models against an upstream. */
describe('channels API: model lists', () => {
  const fixture = channelsApiFixture();
  const { create } = fixture;
  let target: TestApp;
  let admin: Caller;
  let common: Caller;

  beforeAll(() => {
    ({ target, admin, common } = fixture.context);
  });
  let upstream: HttpFake;

  beforeAll(async () => {
    upstream = await new HttpFake((request, response) => {
      if (request.method !== 'GET' || request.url !== '/v1/models') return sendJson(response, 404, { error: { message: 'not found' } });
      if (request.headers.authorization !== 'Bearer sk-good') {
        return sendJson(response, 401, {
          error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' },
        });
      }
      sendJson(response, 200, {
        object: 'list',
        data: [
          { id: 'gpt-4o', object: 'model' },
          { id: 'o1-mini', object: 'model' },
        ],
      });
    }).start();
  });
  afterAll(async () => {
    await upstream.close();
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
        object: 'model',
        created: 1626777600,
        owned_by: 'openai',
        root: 'gpt-4o',
        parent: null,
        permission: [expect.objectContaining({ object: 'model_permission' })],
      });
      expect(response.body.data.find((model: { id: string }) => model.id === 'mj_imagine')).toMatchObject({ owned_by: 'midjourney' });
    });

    it("GET /api/user/models lists the models enabled channels serve in the caller's own group", async () => {
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
    it("reads the upstream's /v1/models with the channel key", async () => {
      const [good] = await create({ name: 'fetch', key: 'sk-good', base_url: `${upstream.baseUrl}/` });
      const response = await call(target, admin, 'get', `/api/channel/fetch_models/${good}`);
      expect(response.body).toEqual({ success: true, message: '', data: ['gpt-4o', 'o1-mini'] });
      expect(upstream.requests.at(-1)).toMatchObject({
        method: 'GET',
        url: '/v1/models',
        headers: expect.objectContaining({ authorization: 'Bearer sk-good' }),
      });
    });

    it("with the creation form's key (POST), and refuses other types, a bad key or an unreachable upstream", async () => {
      const posted = await call(target, admin, 'post', '/api/channel/fetch_models', {
        type: 1,
        base_url: upstream.baseUrl,
        key: 'sk-good',
      });
      expect(posted.body).toEqual({ success: true, message: '', data: ['gpt-4o', 'o1-mini'] });
      expect(
        (await call(target, admin, 'post', '/api/channel/fetch_models', { type: 14, base_url: upstream.baseUrl, key: 'k' })).body,
      ).toEqual({
        success: false,
        message: '仅支持 OpenAI 接口格式',
      });
      expect(
        (await call(target, admin, 'post', '/api/channel/fetch_models', { type: 1, base_url: upstream.baseUrl, key: '' })).body.success,
      ).toBe(false);
      const [bad] = await create({ name: 'fetch-bad', key: 'sk-bad', base_url: upstream.baseUrl });
      const refused = await call(target, admin, 'get', `/api/channel/fetch_models/${bad}`);
      expect(refused.body).toEqual({ success: false, message: '获取模型列表失败: HTTP 401 Incorrect API key provided' });
      const [gone] = await create({ name: 'fetch-gone', key: 'sk-good', base_url: 'http://127.0.0.1:1' });
      const unreachable = await call(target, admin, 'get', `/api/channel/fetch_models/${gone}`);
      expect(unreachable.body.success).toBe(false);
      expect(unreachable.body.message).toMatch(/^获取模型列表失败: upstream unreachable/);
      expect((await call(target, admin, 'get', '/api/channel/fetch_models/999999')).body).toEqual({
        success: false,
        message: '渠道不存在',
      });
    });
  });
});
