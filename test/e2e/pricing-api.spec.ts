import { createTestApp, type TestApp } from '../support/app';
import { channelsApiFixture } from './channels-api-support';
import { call, type Caller } from './users-support';

/** GET /api/pricing: public, one entry per model an enabled channel offers, live after channel and ratio changes. */
describe('pricing API', () => {
  const fixture = channelsApiFixture();
  const { create } = fixture;
  let target: TestApp;
  let root: Caller;
  let admin: Caller;

  beforeAll(() => {
    ({ target, root, admin } = fixture.context);
  });

  const pricing = async () => {
    const response = await target.http().get('/api/pricing').expect(200);
    expect(Object.keys(response.body).sort()).toEqual(['data', 'group_ratio', 'message', 'success']);
    expect(response.body).toMatchObject({ success: true, message: '' });
    return response.body as { data: Array<Record<string, unknown>>; group_ratio: Record<string, number> };
  };
  const entry = async (model: string) => (await pricing()).data.find((item) => item.model_name === model);
  const setOption = async (key: string, value: string) =>
    expect((await call(target, root, 'put', '/api/option/', { key, value })).body).toEqual({ success: true, message: '' });

  it('answers anonymous callers with no model before any channel exists, and the default group ratios', async () => {
    const body = await pricing();
    expect(body.data).toEqual([]);
    expect(body.group_ratio).toEqual({ default: 1, svip: 1, vip: 1 });
  });

  it('lists each model of the enabled channels once, with the groups offering it, sorted by name', async () => {
    await create({ name: 'p-main', models: 'gpt-4o,dall-e-3', group: 'default' });
    await create({ name: 'p-vip', models: 'gpt-4o,pricing-model-x', group: 'default,vip', groups: ['default', 'vip'] });
    const { data } = await pricing();
    expect(data).toEqual([
      {
        model_name: 'dall-e-3',
        quota_type: 1,
        model_ratio: 0,
        model_price: 0.04,
        owner_by: '',
        completion_ratio: 0,
        enable_groups: ['default'],
      },
      {
        model_name: 'gpt-4o',
        quota_type: 0,
        model_ratio: 2.5,
        model_price: 0,
        owner_by: '',
        completion_ratio: 4,
        enable_groups: ['default', 'vip'],
      },
      {
        model_name: 'pricing-model-x',
        quota_type: 0,
        model_ratio: 30,
        model_price: 0,
        owner_by: '',
        completion_ratio: 1,
        enable_groups: ['default', 'vip'],
      },
    ]);
  });

  it('shows a ratio, price or group ratio change through the options API at once', async () => {
    await setOption('ModelRatio', '{"gpt-4o": 3, "pricing-model-x": 0.5}');
    await setOption('CompletionRatio', '{"pricing-model-x": 2}');
    expect(await entry('pricing-model-x')).toMatchObject({ quota_type: 0, model_ratio: 0.5, completion_ratio: 2 });
    expect(await entry('gpt-4o')).toMatchObject({ model_ratio: 3, completion_ratio: 4 });
    await setOption('ModelPrice', '{"pricing-model-x": 0.25}');
    expect(await entry('pricing-model-x')).toMatchObject({ quota_type: 1, model_price: 0.25, model_ratio: 0, completion_ratio: 0 });
    expect(await entry('dall-e-3')).toMatchObject({ quota_type: 0, model_ratio: 30, model_price: 0 });
    await setOption('GroupRatio', '{"default": 1, "vip": 0.8}');
    expect((await pricing()).group_ratio).toEqual({ default: 1, vip: 0.8 });
  });

  it("drops a disabled channel's models and groups at once, and brings them back when it is enabled", async () => {
    const [id] = await create({ name: 'p-solo', models: 'solo-model', group: 'svip', groups: ['svip'] });
    expect(await entry('solo-model')).toMatchObject({ enable_groups: ['svip'] });
    expect((await call(target, admin, 'put', '/api/channel/', { id, status: 2 })).body).toMatchObject({ success: true });
    expect(await entry('solo-model')).toBeUndefined();
    expect((await call(target, admin, 'put', '/api/channel/', { id, status: 1 })).body).toMatchObject({ success: true });
    expect(await entry('solo-model')).toMatchObject({ enable_groups: ['svip'] });
    expect((await call(target, admin, 'delete', `/api/channel/${id}`)).body).toEqual({ success: true, message: '' });
    expect(await entry('solo-model')).toBeUndefined();
  });

  it('ignores query parameters and a session, and has no write route', async () => {
    const plain = await pricing();
    const queried = await target.http().get('/api/pricing?group=vip&p=-1').set('Authorization', admin.token).expect(200);
    expect(queried.body).toEqual(plain);
    const post = await target.http().post('/api/pricing').send({}).expect(404);
    expect(post.body.error).toMatchObject({ type: 'invalid_request_error' });
  });
});

describe('pricing API rate limit', () => {
  let target: TestApp;

  beforeAll(async () => {
    target = await createTestApp({ env: { GLOBAL_API_RATE_LIMIT: '2', GLOBAL_API_RATE_WINDOW_SECONDS: '600' } });
  });
  afterAll(async () => {
    await target.close();
  });

  it('shares the global API bucket with the other /api routes (a bare 429 once it is spent)', async () => {
    await target.http().get('/api/status').expect(200);
    await target.http().get('/api/pricing').expect(200);
    const refused = await target.http().get('/api/pricing');
    expect(refused.status).toBe(429);
    expect(refused.text).toBe('');
  });
});
