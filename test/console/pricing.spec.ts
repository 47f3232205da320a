import type { Page } from 'playwright-core';
import { ApiSession } from './support/api-client';
import { expectText, loginThroughUi } from './support/console-actions';
import { launchConsoleBrowser, uniqueName, type ConsoleBrowser } from './support/browser';
import { startConsoleTarget, type ConsoleTarget } from './support/target';
import { waitForTableRows } from './support/page-state';

// Each test drives a real browser; give it more than the root config's 30 s default.
jest.setTimeout(60_000);

/** A channel as the console's channel form sends it. */
const channel = (name: string, models: string, groups: string[]) => ({
  type: 1,
  name,
  key: `sk-${name}`,
  models,
  group: groups.join(','),
  base_url: '',
  other: '',
  model_mapping: '',
  auto_ban: 1,
  groups,
});

const modelRow = (page: Page, model: string) => page.locator(`tr[data-model="${model}"]`);

describe('console pricing page', () => {
  let target: ConsoleTarget;
  let api: ApiSession;
  let visitor: ConsoleBrowser;
  const vipName = uniqueName('v');

  beforeAll(async () => {
    target = await startConsoleTarget();
    api = await ApiSession.login(target.baseUrl, target.root.username, target.root.password);
    await api.setOption('GroupRatio', '{"default": 1, "vip": 0.5}');
    await api.setOption('ModelRatio', '{"tg-chat-a": 1.5}');
    await api.setOption('CompletionRatio', '{"tg-chat-a": 2}');
    await api.setOption('ModelPrice', '{"tg-image-b": 0.05}');
    await api.must('POST', '/api/channel/', channel('p-main', 'tg-chat-a,tg-image-b', ['default']));
    await api.must('POST', '/api/channel/', channel('p-vip', 'tg-chat-a,tg-vip-c', ['default', 'vip']));
    const vipId = await api.createUser(vipName, 'password123');
    const form = await api.must<Record<string, unknown>>('GET', `/api/user/${vipId}`);
    await api.must('PUT', '/api/user/', { ...form, password: '', group: 'vip' });
    visitor = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
  });

  afterAll(async () => {
    await visitor?.close();
    await target?.stop();
  });

  it('shows a visitor every offered model with its billing type, groups, ratios and default-group prices', async () => {
    const { page } = visitor;
    await page.goto('/pricing');
    await expectText(page, '您还未登录，下方价格按默认分组倍率 1 计算');
    await waitForTableRows(page, 3);

    const chat = modelRow(page, 'tg-chat-a');
    await expectText(chat, '按量计费');
    await expectText(chat, '模型：1.5');
    await expectText(chat, '补全：2');
    await expectText(chat, '提示 $3 / 1M tokens');
    await expectText(chat, '补全 $6 / 1M tokens');
    await chat.getByRole('button', { name: 'vip', exact: true }).waitFor();

    const image = modelRow(page, 'tg-image-b');
    await expectText(image, '按次计费');
    await expectText(image, '$0.05 / 次');
    await image.getByLabel('分组 default 可用').waitFor();

    // An unknown model is billed at ratio 30, as the server does.
    await expectText(modelRow(page, 'tg-vip-c'), '提示 $60 / 1M tokens');
  });

  it('reprices and marks availability for the group clicked in a row', async () => {
    const { page } = visitor;
    await page.goto('/pricing');
    await waitForTableRows(page, 3);
    await modelRow(page, 'tg-vip-c').getByRole('button', { name: 'vip', exact: true }).click();

    await expectText(modelRow(page, 'tg-chat-a'), '提示 $1.5 / 1M tokens');
    await expectText(modelRow(page, 'tg-chat-a'), '补全 $3 / 1M tokens');
    await expectText(modelRow(page, 'tg-image-b'), '$0.025 / 次');
    await modelRow(page, 'tg-image-b').getByLabel('分组 vip 不可用').waitFor();
    await modelRow(page, 'tg-vip-c').getByLabel('分组 vip 可用').waitFor();
  });

  it('filters by a fuzzy model name and copies the selected names', async () => {
    const { page } = visitor;
    await page.goto('/pricing');
    await waitForTableRows(page, 3);
    const filter = page.getByLabel('模糊搜索模型名称');
    await filter.fill('VIP');
    await waitForTableRows(page, 1);
    await modelRow(page, 'tg-vip-c').waitFor();
    await filter.fill('tg-');
    await waitForTableRows(page, 3);

    await page.getByRole('checkbox', { name: 'tg-chat-a' }).check();
    await page.getByRole('checkbox', { name: 'tg-vip-c' }).check();
    await page.getByRole('button', { name: '复制选中模型（2）' }).click();
    await expectText(page, '已复制：tg-chat-a,tg-vip-c');

    await filter.fill('no-such-model');
    await expectText(page, '暂无可用模型');
  });

  it("shows a signed-in user's own group and ratio, and prices for that group", async () => {
    const user = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'en-US' });
    try {
      const { page } = user;
      await loginThroughUi(page, vipName, 'password123', 'en');
      await page.goto('/pricing');
      await expectText(page, 'Your group is vip, group ratio 0.5');
      await expectText(modelRow(page, 'tg-chat-a'), 'Prompt $1.5 / 1M tokens');
      await modelRow(page, 'tg-image-b').getByLabel('Not available to group vip').waitFor();
    } finally {
      await user.close();
    }
  });
});
