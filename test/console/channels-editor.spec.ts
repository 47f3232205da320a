import { HttpFake, sendJson } from '../fakes/http-fake';
import { ChannelHealthUpstreamFake } from '../fakes/upstreams/channel-health-upstream-fake';
import type { ApiSession } from './support/api-client';
import { type AdminConsole, openAdminConsole } from './support/admin-console';
import type { ConsoleBrowser } from './support/browser';
import { channelsNamed, createChannel, eventually, watchForFailures } from './support/channel-list';
import { expectText, waitForValue } from './support/console-actions';
import type { Page } from 'playwright-core';

jest.setTimeout(90_000);

const field = (page: Page, label: RegExp) => page.getByRole('textbox', { name: label });

/** The channel editor at /channel/add and /channel/edit/:id: the client rules, batch keys, the model tools, type fields. */
describe('console channels: the editor', () => {
  let opened: AdminConsole | undefined;
  let api: ApiSession;
  let admin: ConsoleBrowser;
  let upstream: ChannelHealthUpstreamFake;
  let modelList: HttpFake;
  let watched: { failures: string[] };

  beforeAll(async () => {
    upstream = await new ChannelHealthUpstreamFake().start();
    modelList = await new HttpFake((request, response) => {
      if (request.url !== '/v1/models') return sendJson(response, 404, { error: { message: 'not found' } });
      if (request.headers.authorization !== 'Bearer sk-list-good') return sendJson(response, 401, { error: { message: 'bad key' } });
      sendJson(response, 200, {
        object: 'list',
        data: [
          { id: 'up-model-a', object: 'model' },
          { id: 'up-model-b', object: 'model' },
        ],
      });
    }).start();
    opened = await openAdminConsole();
    ({ api, admin } = opened);
    watched = watchForFailures(admin.page);
  });

  afterAll(async () => {
    await opened?.close();
    await upstream?.close();
    await modelList?.close();
  });

  afterEach(() => {
    expect(watched.failures).toEqual([]);
  });

  it('refuses a form that breaks the client rules, creating nothing, then makes one channel per key line', async () => {
    const { page } = admin;
    await page.goto('/channel');
    await page.getByRole('button', { name: '添加渠道' }).click();
    await page.waitForURL((url) => url.pathname === '/channel/add');
    await expectText(page, '创建新的渠道');

    await page.getByRole('button', { name: '提交' }).click();
    await expectText(page, '请填写渠道名称和渠道密钥！');
    await field(page, /^名称/).fill('editor-batch');
    await field(page, /^密钥/).fill('sk-upstream-good\n\nsk-second-key\n');
    await expectText(page, '一行一个密钥，每行创建一个渠道（当前 2 个）。');
    await page.getByRole('button', { name: '提交' }).click();
    await expectText(page, '请至少选择一个模型！');

    await field(page, /^自定义模型名称/).fill('gpt-4o-mini, gpt-4o');
    await page.getByRole('button', { name: '填入', exact: true }).click();
    await field(page, /^自定义模型名称/).fill('gpt-4o');
    await page.getByRole('button', { name: '填入', exact: true }).click();
    await expectText(page, '以下模型已存在：gpt-4o');

    const mapping = field(page, /^模型重定向/);
    await mapping.fill('{"gpt-4o": ');
    await mapping.blur();
    await expectText(page, '模型映射必须是合法的 JSON 格式！');
    await page.getByRole('button', { name: '提交' }).click();
    expect(await channelsNamed(api, 'editor-batch')).toEqual([]);
    await mapping.fill('{"gpt-4o": "gpt-4o-mini"}');

    await field(page, /^代理地址/).fill(`${upstream.baseUrl}/`);
    await page.getByRole('combobox', { name: '分组' }).click();
    await page.getByRole('option', { name: 'vip', exact: true }).click();
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: '提交' }).click();
    await expectText(page, '渠道创建成功！（2 个）');
    await page.waitForURL((url) => url.pathname === '/channel');

    const made = await channelsNamed(api, 'editor-batch');
    expect(made).toHaveLength(2);
    for (const channel of made) {
      expect(channel).toMatchObject({
        type: 1,
        base_url: upstream.baseUrl,
        models: 'gpt-4o-mini,gpt-4o',
        group: 'default,vip',
        model_mapping: '{"gpt-4o": "gpt-4o-mini"}',
      });
    }
    // The first line's key is the one the fake accepts: a test of each channel shows which key it holds.
    const results = await Promise.all(made.map((channel) => api.call('GET', `/api/channel/test/${channel.id}`)));
    expect(results.map((result) => result.success).sort()).toEqual([false, true]);
  });

  it('edits a channel, keeping the saved key when the key is left blank', async () => {
    const { page } = admin;
    const channel = await createChannel(api, 'editor-edit', { base_url: upstream.baseUrl, priority: 1 });
    await page.goto(`/channel/edit/${channel.id}`);
    await expectText(page, '更新渠道信息');
    await waitForValue(field(page, /^名称/), 'editor-edit');
    await field(page, /^名称/).fill('editor-edited');
    await field(page, /^默认测试模型/).fill('gpt-4o');
    await field(page, /^状态码复写/).fill('{"400": "500"}');
    await page.getByRole('spinbutton', { name: '优先级' }).fill('-1200');
    await page.getByRole('spinbutton', { name: '优先级' }).blur();
    await waitForValue(page.getByRole('spinbutton', { name: '优先级' }), '-999');
    await page.getByRole('button', { name: '提交' }).click();
    await expectText(page, '渠道更新成功！');
    await page.waitForURL((url) => url.pathname === '/channel');

    const saved = (await api.must<Record<string, unknown>>('GET', `/api/channel/${channel.id}`)) as Record<string, unknown>;
    expect(saved).toMatchObject({ name: 'editor-edited', test_model: 'gpt-4o', status_code_mapping: '{"400": "500"}', priority: -999 });
    const tested = await api.call('GET', `/api/channel/test/${channel.id}`);
    expect(tested.success).toBe(true);

    await page.goto('/channel/edit/999999');
    await expectText(page, '渠道不存在');
  });

  it('fetches the models from the upstream with the typed key, and fills the type models and all models', async () => {
    const { page } = admin;
    await page.goto('/channel/add');
    await page.getByRole('button', { name: '获取模型列表' }).click();
    await expectText(page, '请填写渠道密钥！');
    await field(page, /^代理地址/).fill(modelList.baseUrl);
    await field(page, /^密钥/).fill('sk-list-good');
    await page.getByRole('button', { name: '获取模型列表' }).click();
    await expectText(page, '获取到 2 个模型');
    const models = page.getByRole('combobox', { name: /^模型/ }).locator('xpath=ancestor::div[contains(@class,"MuiAutocomplete-root")]');
    await expectText(models, 'up-model-a');
    await expectText(models, 'up-model-b');
    await page.getByRole('button', { name: '清除所有模型' }).click();
    await models.getByText('up-model-a').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: '填入相关模型' }).click();
    await expectText(models, 'gpt-4o-mini');
    const typeCount = await models.locator('.MuiChip-root').count();
    await page.getByRole('button', { name: '填入所有模型' }).click();
    await expectText(models, 'claude-3-haiku-20240307');
    expect(await models.locator('.MuiChip-root').count()).toBeGreaterThan(typeCount);

    await field(page, /^密钥/).fill('sk-list-bad');
    await page.getByRole('button', { name: '获取模型列表' }).click();
    await expectText(page, /获取模型列表失败/);
    // A saved channel's editor fetches with the stored key (the key field left blank).
    const saved = await createChannel(api, 'editor-fetch', { base_url: modelList.baseUrl, key: 'sk-list-good' });
    await page.goto(`/channel/edit/${saved.id}`);
    await waitForValue(field(page, /^名称/), 'editor-fetch');
    await page.getByRole('button', { name: '获取模型列表' }).click();
    await expectText(page, '获取到 2 个模型');
    await page.getByRole('button', { name: '提交' }).click();
    await expectText(page, '渠道更新成功！');
    expect((await channelsNamed(api, 'editor-fetch'))[0].models).toBe('up-model-a,up-model-b');
  });

  it('asks each type for its own fields: Azure API version and Spark version default, Baidu key format, Vertex region', async () => {
    const { page } = admin;
    const pickType = async (name: string) => {
      await page.getByRole('combobox', { name: /^类型/ }).click();
      await page.getByRole('option', { name, exact: true }).click();
    };
    const fillCommon = async (name: string, key: string) => {
      await field(page, /^名称/).fill(name);
      await field(page, /^密钥/).fill(key);
      await field(page, /^自定义模型名称/).fill('gpt-4o');
      await page.getByRole('button', { name: '填入', exact: true }).click();
    };

    await page.goto('/channel/add');
    // The server refuses a channel of type 21 (no adapter speaks it), so the editor does not offer it.
    await page.getByRole('combobox', { name: /^类型/ }).click();
    expect(await page.getByRole('option', { name: '知识库：AI Proxy', exact: true }).getAttribute('aria-disabled')).toBe('true');
    await page.keyboard.press('Escape');
    await pickType('Azure OpenAI');
    await expectText(page, '注意，模型部署名称必须和模型名称保持一致。');
    await fillCommon('editor-azure', 'azure-key');
    await waitForValue(field(page, /^默认 API 版本/), '2023-06-01-preview');
    await field(page, /^默认 API 版本/).fill('');
    await page.getByRole('button', { name: '提交' }).click();
    await expectText(page, '请填写该渠道类型的代理地址！');
    await field(page, /^代理地址/).fill('https://example-resource.openai.azure.com/');
    await page.getByRole('button', { name: '提交' }).click();
    await expectText(page, '渠道创建成功！（1 个）');
    const [azure] = await eventually(
      () => channelsNamed(api, 'editor-azure'),
      (rows) => rows.length === 1,
    );
    expect(azure).toMatchObject({ type: 3, other: '2023-06-01-preview', base_url: 'https://example-resource.openai.azure.com' });

    await page.goto('/channel/add');
    await pickType('iFlytek Spark');
    await expectText(page, '按照如下格式输入：APPID|APISecret|APIKey');
    await fillCommon('editor-spark', 'app|secret|key');
    await field(page, /^模型版本/).fill('');
    await page.getByRole('button', { name: '提交' }).click();
    await expectText(page, '渠道创建成功！（1 个）');
    expect((await channelsNamed(api, 'editor-spark'))[0]).toMatchObject({ type: 18, other: 'v2.1' });

    await page.goto('/channel/add');
    await pickType('Baidu Wenxin');
    await expectText(page, '按照如下格式输入：APIKey|SecretKey');
    await page.getByRole('button', { name: '获取模型列表' }).click();
    await expectText(page, '仅支持 OpenAI 接口格式');

    await pickType('Vertex AI');
    await fillCommon('editor-vertex', '{\n  "type": "service_account",\n  "project_id": "p"\n}');
    await page.getByRole('button', { name: '提交' }).click();
    await expectText(page, '部署地区不能为空');
    await field(page, /^部署地区/).fill('{"europe": "europe-west1"}');
    await page.getByRole('button', { name: '提交' }).click();
    await expectText(page, '部署地区必须包含default字段');
    await page.getByRole('button', { name: '填入模板' }).first().click();
    await page.getByRole('button', { name: '提交' }).click();
    await expectText(page, '渠道创建成功！（1 个）');
    const vertex = await channelsNamed(api, 'editor-vertex');
    expect(vertex).toHaveLength(1);
    expect(JSON.parse(vertex[0].other)).toMatchObject({ default: 'us-central1' });
  });
});
