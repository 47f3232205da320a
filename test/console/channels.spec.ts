import { ChannelHealthUpstreamFake } from '../fakes/upstreams/channel-health-upstream-fake';
import type { ApiSession } from './support/api-client';
import { type AdminConsole, openAdminConsole } from './support/admin-console';
import type { ConsoleBrowser } from './support/browser';
import { channelRow, channelsNamed, createChannel, eventually, watchForFailures } from './support/channel-list';
import { expectText } from './support/console-actions';
import { waitForTableRows } from './support/page-state';
import { rowOpacity } from './support/redemption-list';
import type { Page } from 'playwright-core';

/** The names in the first two rows (the name is the third cell, after the checkbox and the id). */
const firstNames = async (page: Page): Promise<string[]> =>
  await page
    .locator('tbody tr')
    .evaluateAll((rows) =>
      rows.slice(0, 2).map((row) => (row as unknown as { cells: Array<{ textContent: string }> }).cells[2].textContent),
    );

// Each test drives a real browser; give it more than the root config's 30 s default.
jest.setTimeout(90_000);

/** The /channel list and its row actions, against the real server and an OpenAI-style fake upstream. */
describe('console channels: list and row actions', () => {
  let opened: AdminConsole | undefined;
  let api: ApiSession;
  let admin: ConsoleBrowser;
  let upstream: ChannelHealthUpstreamFake;
  let watched: { failures: string[] };

  beforeAll(async () => {
    upstream = await new ChannelHealthUpstreamFake().start();
    opened = await openAdminConsole(async (session) => {
      await session.setOption('AutomaticDisableChannelEnabled', 'true');
      await createChannel(session, 'alpha-main', { base_url: upstream.baseUrl, group: 'default,vip', priority: 3 });
      await createChannel(session, 'beta-side', { base_url: upstream.baseUrl, models: 'claude-3-haiku-20240307' });
      await createChannel(session, 'gamma-off', { base_url: upstream.baseUrl, status: 2 });
    });
    ({ api, admin } = opened);
    watched = watchForFailures(admin.page);
  });

  afterAll(async () => {
    await opened?.close();
    await upstream?.close();
  });

  afterEach(() => {
    expect(watched.failures).toEqual([]);
  });

  it('lists the channels with their type, groups and status, greys the disabled one, and filters by keyword, group and model', async () => {
    const { page } = admin;
    await page.goto('/channel');
    await expectText(page, '管理渠道');
    const alpha = channelRow(page, 'alpha-main');
    await alpha.waitFor();
    await expectText(alpha, 'OpenAI');
    await expectText(alpha, 'vip');
    await expectText(alpha, '已启用');
    await expectText(alpha, '未测试');
    expect(await rowOpacity(alpha)).toBe(1);
    const gamma = channelRow(page, 'gamma-off');
    await expectText(gamma, '已禁用');
    expect(await rowOpacity(gamma)).toBeLessThan(1);

    await page.getByRole('textbox', { name: '搜索' }).fill('beta');
    await alpha.waitFor({ state: 'detached' });
    await channelRow(page, 'beta-side').waitFor();
    await page.getByRole('textbox', { name: '搜索' }).fill('');
    await alpha.waitFor();

    await page.getByRole('textbox', { name: '模型' }).fill('claude-3-haiku');
    await alpha.waitFor({ state: 'detached' });
    await channelRow(page, 'beta-side').waitFor();
    await page.getByRole('textbox', { name: '模型' }).fill('');
    await alpha.waitFor();

    await page.getByRole('combobox', { name: '分组' }).click();
    await page.getByRole('option', { name: 'vip', exact: true }).click();
    await channelRow(page, 'beta-side').waitFor({ state: 'detached' });
    await alpha.waitFor();
    await page.getByRole('combobox', { name: '分组' }).click();
    // The empty choice is named by its aria-label ("清空"), and reads "全部分组".
    await page.getByRole('option').filter({ hasText: '全部分组' }).click();
    await channelRow(page, 'beta-side').waitFor();
  });

  it('pages the list, keeps the chosen page size in the browser, and sorts by id on request', async () => {
    const { page } = admin;
    for (let index = 0; index < 9; index++) await createChannel(api, `page-${index}`, { priority: index === 0 ? 9 : 0 });
    await page.goto('/channel');
    await waitForTableRows(page, 10);
    // Priority order: page-0 (9) and alpha-main (3) lead.
    await expect(firstNames(page)).resolves.toEqual(['page-0', 'alpha-main']);
    await page.getByRole('button', { name: /下一页|next page/i }).click();
    await waitForTableRows(page, 2);
    await page.getByRole('button', { name: /上一页|previous page/i }).click();
    await waitForTableRows(page, 10);

    await page.getByRole('combobox', { name: /每页行数/ }).click();
    await page.getByRole('option', { name: '20', exact: true }).click();
    await waitForTableRows(page, 12);
    await page.reload();
    await waitForTableRows(page, 12);
    const stored = await page.evaluate(() =>
      Object.entries((globalThis as unknown as { localStorage: Record<string, string> }).localStorage)
        .filter(([key]) => key.includes('channel'))
        .map(([, value]) => value)
        .join(' '),
    );
    expect(stored).toContain('"perPage":20');

    await page.getByLabel('ID 排序').check();
    await eventually(
      () => firstNames(page),
      (names) => names[0] === 'page-8' && names[1] === 'page-7',
    );
    await page.getByLabel('ID 排序').uncheck();
    await eventually(
      () => firstNames(page),
      (names) => names[0] === 'page-0',
    );
    for (let index = 0; index < 9; index++) {
      const [row] = await channelsNamed(api, `page-${index}`);
      await api.must('DELETE', `/api/channel/${row.id}`);
    }
  });

  it('disables and enables a channel from its row, as the server then holds it', async () => {
    const { page } = admin;
    await page.goto('/channel');
    const beta = channelRow(page, 'beta-side');
    await beta.getByRole('button', { name: '禁用' }).click();
    await expectText(beta, '已禁用');
    const [disabled] = await channelsNamed(api, 'beta-side');
    expect(disabled.status).toBe(2);
    expect(await rowOpacity(beta)).toBeLessThan(1);

    await beta.getByRole('button', { name: '启用' }).click();
    await expectText(beta, '已启用');
    expect((await channelsNamed(api, 'beta-side'))[0].status).toBe(1);

    await beta.getByRole('button', { name: '编辑' }).click();
    await page.waitForURL((url) => url.pathname === `/channel/edit/${disabled.id}`);
    await expectText(page, '更新渠道信息');
  });

  it('saves priority and weight edited in the row; a negative weight becomes 0', async () => {
    const { page } = admin;
    await page.goto('/channel');
    const beta = channelRow(page, 'beta-side');
    const priority = beta.getByLabel('优先级');
    await priority.fill('7');
    await priority.press('Enter');
    await expectText(page, '渠道更新成功！');
    await eventually(
      () => channelsNamed(api, 'beta-side'),
      ([row]) => row.priority === 7,
    );
    const weight = beta.getByLabel('权重');
    await weight.fill('-4');
    await weight.press('Enter');
    await eventually(
      () => channelsNamed(api, 'beta-side'),
      ([row]) => row.weight === 0,
    );
    await weight.fill('12');
    await weight.press('Enter');
    const [saved] = await eventually(
      () => channelsNamed(api, 'beta-side'),
      ([row]) => row.weight === 12,
    );
    expect(saved.priority).toBe(7);
  });

  it('tests a channel against its upstream (default model and a picked one) and shows the time it took', async () => {
    const { page } = admin;
    await page.goto('/channel');
    const alpha = channelRow(page, 'alpha-main');
    const before = upstream.chatRequests;
    await alpha.getByRole('button', { name: '测试', exact: true }).click();
    await expectText(page, /通道 alpha-main 测试成功，耗时 [\d.]+ 秒。/);
    const [tested] = await eventually(
      () => channelsNamed(api, 'alpha-main'),
      ([row]) => row.test_time > 0,
    );
    expect(tested.response_time).toBeGreaterThan(0);
    // A fast local upstream: the response time is green (up to 1 s).
    await alpha
      .locator('[data-colour="green"]')
      .getByText(/^[\d.]+ 秒$/)
      .waitFor();
    expect(upstream.chatRequests).toBe(before + 1);

    await alpha.getByRole('button', { name: '选择模型测试' }).click();
    await page.getByRole('menuitem', { name: 'gpt-4o', exact: true }).click();
    await eventually(
      async () => upstream.chatRequests,
      (count) => count === before + 2,
    );
    const last = upstream.requests[upstream.requests.length - 1];
    expect(JSON.parse(last.body).model).toBe('gpt-4o');
  });

  it('shows the upstream refusal of a test, and the auto-disable reason and time as the status tooltip', async () => {
    const { page } = admin;
    await createChannel(api, 'delta-bad', { base_url: upstream.baseUrl, key: 'sk-revoked' });
    await page.goto('/channel');
    const delta = channelRow(page, 'delta-bad');
    await delta.getByRole('button', { name: '测试', exact: true }).click();
    await expectText(page, /Incorrect API key provided/);
    const [row] = await eventually(
      () => channelsNamed(api, 'delta-bad'),
      ([channel]) => channel.status === 3,
    );
    const reason = (JSON.parse(row.other_info) as { status_reason: string }).status_reason;
    expect(reason).not.toBe('');
    const tag = delta.getByTestId('auto-disabled-tag');
    await tag.waitFor();
    expect(await rowOpacity(delta)).toBeLessThan(1);
    await tag.hover();
    const tooltip = page.getByRole('tooltip');
    await expectText(tooltip, '原因：');
    await expectText(tooltip, reason.slice(0, 20));
  });

  it('updates a balance, copies a channel and deletes one after confirming', async () => {
    const { page } = admin;
    await page.goto('/channel');
    const alpha = channelRow(page, 'alpha-main');
    await alpha.getByRole('button', { name: '更多操作' }).click();
    await page.getByRole('menuitem', { name: '更新余额' }).click();
    await expectText(page, '通道 alpha-main 余额更新成功：$42.50');
    await expectText(alpha, '$42.50');
    expect((await channelsNamed(api, 'alpha-main'))[0].balance).toBe(42.5);

    await alpha.getByRole('button', { name: '更多操作' }).click();
    await page.getByRole('menuitem', { name: '复制' }).click();
    await expectText(page, '渠道复制成功');
    const copy = channelRow(page, 'alpha-main_复制');
    await copy.waitFor();
    const [copied] = await channelsNamed(api, 'alpha-main_复制');
    expect(copied).toMatchObject({ models: 'gpt-4o-mini,gpt-4o', group: 'default,vip', priority: 3 });

    await copy.getByRole('button', { name: '更多操作' }).click();
    await page.getByRole('menuitem', { name: '删除' }).click();
    const dialog = page.getByRole('dialog');
    await expectText(dialog, '确定删除渠道 alpha-main_复制？');
    await dialog.getByRole('button', { name: '取消' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await channelsNamed(api, 'alpha-main_复制')).toHaveLength(1);

    await copy.getByRole('button', { name: '更多操作' }).click();
    await page.getByRole('menuitem', { name: '删除' }).click();
    await page.getByRole('dialog').getByRole('button', { name: '确定' }).click();
    await expectText(page, '渠道已删除');
    await copy.waitFor({ state: 'detached' });
    expect(await channelsNamed(api, 'alpha-main_复制')).toHaveLength(0);
  });
});
