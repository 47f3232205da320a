import { ChannelHealthUpstreamFake } from '../fakes/upstreams/channel-health-upstream-fake';
import type { ApiSession } from './support/api-client';
import { type AdminConsole, openAdminConsole } from './support/admin-console';
import { launchConsoleBrowser, type ConsoleBrowser } from './support/browser';
import { type ChannelRow, channelRow, channelsNamed, createChannel, eventually, watchForFailures } from './support/channel-list';
import { dismissDefaultPasswordWarning, expectText, loginThroughUi } from './support/console-actions';
import { bodyBackground } from './support/page-state';
import type { Page } from 'playwright-core';

jest.setTimeout(120_000);

/** How far the page is wider than the window (0 or less: no sideways scrolling). */
const overflow = (page: Page): Promise<number> =>
  page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
      .documentElement;
    return root.scrollWidth - root.clientWidth;
  });

const isDark = (rgb: string) => {
  const [r, g, b] = (rgb.match(/\d+/g) ?? []).map(Number);
  return r + g + b < 200;
};

/** The list's bulk actions (each with its count or progress), and the screen in English, dark and at 375 px. */
describe('console channels: bulk actions', () => {
  let opened: AdminConsole | undefined;
  let api: ApiSession;
  let admin: ConsoleBrowser;
  let upstream: ChannelHealthUpstreamFake;
  let watched: { failures: string[] };
  const ids = (names: string[]) =>
    Promise.all(names.map(async (name) => (await channelsNamed(api, name)).map((row) => row.id))).then((all) => all.flat());

  beforeAll(async () => {
    upstream = await new ChannelHealthUpstreamFake().start();
    opened = await openAdminConsole(async (session) => {
      await session.setOption('AutomaticDisableChannelEnabled', 'true');
      await createChannel(session, 'bulk-good-1', { base_url: upstream.baseUrl });
      await createChannel(session, 'bulk-good-2', { base_url: upstream.baseUrl });
      await createChannel(session, 'bulk-revoked', { base_url: upstream.baseUrl, key: 'sk-revoked' });
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

  it('tests all channels, showing the progress and then how many stayed enabled and how many were disabled', async () => {
    const { page } = admin;
    await page.goto('/channel');
    await channelRow(page, 'bulk-revoked').waitFor();
    await page.getByRole('button', { name: '测试所有通道' }).click();
    const banner = page.getByTestId('channel-run');
    await expectText(banner, '测试完成：已测试 3 / 3 个通道；启用 2，禁用 1。');
    const [revoked] = await channelsNamed(api, 'bulk-revoked');
    expect(revoked.status).toBe(3);
    for (const name of ['bulk-good-1', 'bulk-good-2']) {
      const [good] = await channelsNamed(api, name);
      expect(good.status).toBe(1);
      expect(good.test_time).toBeGreaterThan(0);
    }
    await expectText(channelRow(page, 'bulk-revoked'), '自动禁用');
    await banner.getByRole('button', { name: /close|关闭/i }).click();
    await banner.waitFor({ state: 'detached' });
  });

  it('updates every enabled balance with its progress and count (a failed query counted as missing), and fixes the routing rows with the count the server answers', async () => {
    const { page } = admin;
    // An upstream nobody answers at: its balance query fails, leaves no update time, and is counted as missing.
    const unreachable = await createChannel(api, 'bulk-unreachable', { base_url: 'http://127.0.0.1:1' });
    await page.goto('/channel');
    await page.getByRole('button', { name: '更新所有已启用通道余额' }).click();
    const banner = page.getByTestId('channel-run');
    await expectText(banner, /正在更新余额：已更新 \d \/ 3/);
    await banner.getByText('余额更新完成：已更新 2 / 3 个通道。 1 个没有结果（失败或不支持）。').waitFor({ timeout: 40_000 });
    await api.must('DELETE', `/api/channel/${unreachable.id}`);
    for (const name of ['bulk-good-1', 'bulk-good-2']) expect((await channelsNamed(api, name))[0].balance).toBe(42.5);
    await expectText(channelRow(page, 'bulk-good-1'), '$42.50');

    await page.getByRole('button', { name: '修复数据库一致性' }).click();
    await expectText(page, /已修复 \d+ 个通道！/);
  });

  it('deletes the selected channels and then every disabled one, each after confirming, with the count deleted', async () => {
    const { page } = admin;
    await createChannel(api, 'bulk-sel-1');
    await createChannel(api, 'bulk-sel-2');
    await createChannel(api, 'bulk-off', { status: 2 });
    await page.goto('/channel');
    for (const name of ['bulk-sel-1', 'bulk-sel-2']) await channelRow(page, name).getByRole('checkbox').check();
    await page.getByRole('button', { name: '删除所选通道' }).click();
    const dialog = page.getByRole('dialog');
    await expectText(dialog, '确定删除所选的 2 个通道？');
    await dialog.getByRole('button', { name: '确定' }).click();
    await expectText(page, '已删除 2 个通道！');
    await channelRow(page, 'bulk-sel-1').waitFor({ state: 'detached' });
    expect(await ids(['bulk-sel-1', 'bulk-sel-2'])).toEqual([]);

    // bulk-off (switched off by hand), and bulk-revoked when the test run above auto-disabled it.
    const disabled = (await api.must<ChannelRow[]>('GET', '/api/channel/search?keyword=')).filter((row) => row.status !== 1);
    expect(disabled.map((row) => row.name)).toContain('bulk-off');
    // The first deletion's notice may still be showing the same text: wait for this deletion's own answer.
    const answered = page.waitForResponse(
      (response) => response.request().method() === 'DELETE' && new URL(response.url()).pathname === '/api/channel/disabled',
    );
    await page.getByRole('button', { name: '删除禁用通道' }).click();
    await page.getByRole('dialog').getByRole('button', { name: '确定' }).click();
    expect(((await (await answered).json()) as { data: number }).data).toBe(disabled.length);
    await expectText(page, `已删除 ${disabled.length} 个通道！`);
    await channelRow(page, 'bulk-off').waitFor({ state: 'detached' });
    expect(await ids(disabled.map((row) => row.name))).toEqual([]);
    expect(await ids(['bulk-good-1', 'bulk-good-2'])).toHaveLength(2);
  });

  it('reads in English, in dark mode and at 375 px wide, with an empty state for a search that finds nothing', async () => {
    const narrow = await launchConsoleBrowser({ baseUrl: opened!.target.baseUrl, locale: 'en-US', viewport: { width: 375, height: 740 } });
    try {
      const { page } = narrow;
      const failures = watchForFailures(page);
      await loginThroughUi(page, 'root', '123456', 'en');
      await dismissDefaultPasswordWarning(page);
      await page.goto('/channel');
      // On a phone the app bar shows the system name instead of the page title.
      await page.getByRole('button', { name: 'Add channel' }).waitFor();
      await page.getByRole('button', { name: 'Test all channels' }).waitFor();
      await eventually(
        () => page.getByRole('row').count(),
        (rows) => rows > 1,
      );
      await page.getByRole('button', { name: /dark/i }).first().click();
      await eventually(
        () => bodyBackground(page),
        (rgb) => isDark(rgb),
      );
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      await page.getByRole('textbox', { name: 'Search' }).fill('no-such-channel-name');
      await expectText(page, 'No channels yet');
      await page.goto('/channel/add');
      await page.getByRole('textbox', { name: /^Name/ }).waitFor();
      await page.getByRole('button', { name: 'Submit' }).click();
      await expectText(page, 'Please fill in the channel name and channel key!');
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      expect(failures.failures).toEqual([]);
    } finally {
      await narrow.close();
    }
  });
});
