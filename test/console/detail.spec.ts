import type { Locator, Page } from 'playwright-core';
import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { projected } from '../e2e/users-support';
import { ApiSession } from './support/api-client';
import { launchConsoleBrowser, uniqueName, type ConsoleBrowser } from './support/browser';
import { dismissDefaultPasswordWarning, expectText, loginThroughUi, statValue } from './support/console-actions';
import { bodyBackground } from './support/page-state';
import { createFakeChannel, createRelayUser, relayChat, type RelayUser } from './support/relay-charges';
import { startConsoleTarget, type ConsoleTarget } from './support/target';

// Real relay charges, then browsers on the dashboard.
jest.setTimeout(90_000);

interface DataRow {
  model_name: string;
  created_at: number;
  username: string;
  count: number;
  quota: number;
  token_used: number;
}

type BrowserGlobals = { document: { documentElement: { scrollWidth: number } }; innerWidth: number };

const sums = (rows: DataRow[]) => ({
  count: rows.reduce((sum, row) => sum + row.count, 0),
  quota: rows.reduce((sum, row) => sum + row.quota, 0),
  tokens: rows.reduce((sum, row) => sum + row.token_used, 0),
});

/** new-api's short numbers, as the console shows raw quota: k from 1e4, M from 1e6, B from 1e9. */
const shortNumber = (value: number): string => {
  if (value >= 1e9) return `${(value / 1e9).toFixed(1)}B`;
  if (value >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (value >= 1e4) return `${(value / 1e3).toFixed(1)}k`;
  return String(value);
};

const pad = (value: number) => String(value).padStart(2, '0');
const monthDay = (date: Date) => `${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;

/** The labels a row's hour gets on the time axis, in local time as the browser shows them (same machine, same zone). */
const labelsOf = (createdAt: number) => {
  const date = new Date(createdAt * 1000);
  const monday = new Date(date.getFullYear(), date.getMonth(), date.getDate() - ((date.getDay() + 6) % 7));
  const sunday = new Date(monday.getFullYear(), monday.getMonth(), monday.getDate() + 6);
  return { hour: `${monthDay(date)} ${pad(date.getHours())}:00`, day: monthDay(date), week: `${monthDay(monday)} - ${monthDay(sunday)}` };
};

/** Waits until the value under a stat label reads exactly `expected`. */
const waitForStat = async (page: Page, label: string, expected: string): Promise<void> => {
  const value = statValue(page, label);
  const deadline = Date.now() + 10_000;
  let seen: string | null = null;
  while (Date.now() < deadline) {
    seen = (await value.textContent().catch(() => null))?.trim() ?? null;
    if (seen === expected) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${label} shows ${JSON.stringify(seen)} instead of ${JSON.stringify(expected)}`);
};

/** The model names a chart's legend lists. */
const legendOf = async (chart: Locator): Promise<string[]> => {
  await chart.locator('.recharts-legend-item-text').first().waitFor();
  return (await chart.locator('.recharts-legend-item-text').allTextContents()).sort();
};

/** Waits until the time axis shows a bucket label of the given shape (the axis is drawn a frame after the bars). */
const waitForAxisLabel = (chart: Locator, label: string | RegExp): Promise<void> =>
  chart
    .locator('.recharts-xAxis-tick-labels .recharts-cartesian-axis-tick-value', {
      hasText: typeof label === 'string' ? new RegExp(`^${label}$`) : label,
    })
    .first()
    .waitFor();

/** The average per minute the screen must show for the range its inputs hold. */
const perMinuteOf = async (page: Page, amount: number, startLabel: string, endLabel: string): Promise<string> => {
  const start = new Date(await page.getByLabel(startLabel).inputValue()).getTime();
  const end = new Date(await page.getByLabel(endLabel).inputValue()).getTime();
  return (amount / ((end - start) / 60_000)).toFixed(3);
};

describe('console data dashboard (/detail)', () => {
  let target: ConsoleTarget;
  let root: ApiSession;
  let alice: RelayUser;
  let bob: RelayUser;
  let browser: ConsoleBrowser | undefined;
  const upstream = new OpenAIUpstreamFake();
  const now = () => Math.floor(Date.now() / 1000);

  /** What the server holds for the last week: every user's rows, or one username's. */
  const serverRows = (username = ''): Promise<DataRow[]> =>
    root.must<DataRow[]>(
      'GET',
      `/api/data/?username=${encodeURIComponent(username)}&start_timestamp=${now() - 8 * 86400}&end_timestamp=${now() + 3600}`,
    );

  beforeAll(async () => {
    await upstream.start();
    target = await startConsoleTarget();
    root = await ApiSession.login(target.baseUrl, target.root.username, target.root.password);
    // Raw quota units on screen, so the totals can be compared exactly; the week-long default range of "day".
    await root.setOption('DisplayInCurrencyEnabled', 'false');
    await root.setOption('DataExportDefaultTime', 'day');
    await createFakeChannel(root, upstream.baseUrl, ['gpt-3.5-turbo', 'gpt-4o-mini', 'gpt-4o']);
    alice = await createRelayUser(root, target.baseUrl, uniqueName('da'), 5_000_000);
    bob = await createRelayUser(root, target.baseUrl, uniqueName('db'), 5_000_000);
    await relayChat(target.baseUrl, alice.key, 'gpt-3.5-turbo');
    await relayChat(target.baseUrl, alice.key, 'gpt-3.5-turbo');
    await relayChat(target.baseUrl, alice.key, 'gpt-4o-mini');
    await relayChat(target.baseUrl, bob.key, 'gpt-4o');
    await relayChat(target.baseUrl, bob.key, 'gpt-4o');
    await projected(target.app);
  });

  afterEach(async () => {
    await browser?.close();
    browser = undefined;
  });

  afterAll(async () => {
    await target?.stop();
    await upstream.close();
  });

  it("shows an admin every user's totals and models, filters by username, and regroups by hour, day and week", async () => {
    const all = await serverRows();
    const totals = sums(all);
    expect(totals.count).toBe(5);
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    const { page } = browser;
    await loginThroughUi(page, target.root.username, target.root.password);
    await dismissDefaultPasswordWarning(page);
    await page.goto('/detail');

    // DataExportDefaultTime "day": the granularity and a range of the last week.
    await expectText(page.getByRole('combobox', { name: '时间粒度' }), '天');
    const start = new Date(await page.getByLabel('起始时间').inputValue()).getTime();
    const end = new Date(await page.getByLabel('结束时间').inputValue()).getTime();
    expect(Math.round((end - start) / 3_600_000)).toBe(7 * 24 + 1);

    await waitForStat(page, '统计次数', String(totals.count));
    await waitForStat(page, '统计Tokens', String(totals.tokens));
    await waitForStat(page, '统计额度', shortNumber(totals.quota));
    await waitForStat(page, '平均RPM', await perMinuteOf(page, totals.count, '起始时间', '结束时间'));
    await waitForStat(page, '平均TPM', await perMinuteOf(page, totals.tokens, '起始时间', '结束时间'));
    const rootSelf = await root.must<{ quota: number; request_count: number }>('GET', '/api/user/self');
    await waitForStat(page, '当前余额', shortNumber(rootSelf.quota));
    await waitForStat(page, '请求次数', String(rootSelf.request_count));

    const models = ['gpt-3.5-turbo', 'gpt-4o', 'gpt-4o-mini'];
    const consumption = page.getByTestId('detail-consumption-chart');
    expect(await legendOf(consumption)).toEqual(models);
    expect(await legendOf(page.getByTestId('detail-count-chart'))).toEqual(models);
    expect(await legendOf(page.getByTestId('detail-share-chart'))).toEqual(models);
    await expectText(page.getByTestId('detail-share-chart'), `总计：${totals.count}`);
    expect((await consumption.locator('.recharts-bar-rectangle').count()) > 0).toBe(true);
    await waitForAxisLabel(consumption, labelsOf(all[0].created_at).day);

    // One user's rows: their totals and only their models.
    const aliceRows = await serverRows(alice.username);
    const aliceTotals = sums(aliceRows);
    const labels = labelsOf(aliceRows[0].created_at);
    expect(aliceTotals.count).toBe(3);
    await page.getByLabel('用户名称').fill(alice.username);
    await page.getByRole('button', { name: '查询' }).click();
    await waitForStat(page, '统计次数', String(aliceTotals.count));
    await waitForStat(page, '统计额度', shortNumber(aliceTotals.quota));
    expect(await legendOf(consumption)).toEqual(['gpt-3.5-turbo', 'gpt-4o-mini']);

    // Regrouped on the page, without asking the server again.
    let dataRequests = 0;
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/api/data')) dataRequests++;
    });
    await page.getByRole('combobox', { name: '时间粒度' }).click();
    await page.getByRole('option', { name: '小时' }).click();
    await waitForAxisLabel(consumption, labels.hour);
    await page.getByRole('combobox', { name: '时间粒度' }).click();
    await page.getByRole('option', { name: '周' }).click();
    await waitForAxisLabel(consumption, labels.week);
    await waitForStat(page, '统计次数', String(aliceTotals.count));
    expect(dataRequests).toBe(0);

    // A username with no rows: zero totals and the empty state instead of charts.
    await page.getByLabel('用户名称').fill('nobody-here');
    await page.getByRole('button', { name: '查询' }).click();
    await waitForStat(page, '统计次数', '0');
    await expectText(consumption, '无数据');

    // No start time: refused on the page before anything is asked.
    await page.getByLabel('起始时间').fill('');
    await page.getByRole('button', { name: '查询' }).click();
    await expectText(page, '请选择起始时间和结束时间');
  });

  it('shows a common user only their own rows, in English, dark and at 375 px, and the server refuses a range over 30 days', async () => {
    const own = sums((await serverRows(bob.username)).filter((row) => row.username === bob.username));
    expect(own.count).toBe(2);
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'en-US', viewport: { width: 375, height: 800 } });
    const { page } = browser;
    await loginThroughUi(page, bob.username, 'password123', 'en');
    await page.getByRole('button', { name: 'Switch to dark mode' }).click();
    await page.goto('/detail');

    await waitForStat(page, 'Requests in range', String(own.count));
    await waitForStat(page, 'Tokens in range', String(own.tokens));
    await waitForStat(page, 'Quota in range', shortNumber(own.quota));
    await waitForStat(page, 'Average RPM', await perMinuteOf(page, own.count, 'Start time', 'End time'));
    expect(await legendOf(page.getByTestId('detail-consumption-chart'))).toEqual(['gpt-4o']);
    expect(await legendOf(page.getByTestId('detail-share-chart'))).toEqual(['gpt-4o']);
    expect(await page.getByLabel('Username', { exact: true }).count()).toBe(0);

    const [r, g, b] = ((await bodyBackground(page)).match(/\d+/g) ?? []).map(Number);
    expect(r + g + b).toBeLessThan(300);
    const overflow = await page.evaluate(() => {
      const globals = globalThis as unknown as BrowserGlobals;
      return globals.document.documentElement.scrollWidth - globals.innerWidth;
    });
    expect(overflow).toBeLessThanOrEqual(0);

    // More than 30 days: the server's own refusal, and the screen keeps what it showed.
    const start = new Date(Date.now() - 40 * 86_400_000);
    await page
      .getByLabel('Start time')
      .fill(`${start.getFullYear()}-${pad(start.getMonth() + 1)}-${pad(start.getDate())}T${pad(start.getHours())}:00`);
    await page.getByRole('button', { name: 'Query' }).click();
    await expectText(page, '时间跨度不能超过 1 个月');
    await waitForStat(page, 'Requests in range', String(own.count));
  });
});
