import type { Page } from 'playwright-core';
import { ApiSession } from './support/api-client';
import { launchConsoleBrowser, uniqueName, type ConsoleBrowser } from './support/browser';
import { dismissDefaultPasswordWarning, expectText, loginThroughUi } from './support/console-actions';
import {
  columnHeaders,
  dollars,
  expectedBreakdownZh,
  localDateTime,
  logRow,
  logRows,
  waitForLogRows,
  statDollars,
  watchFailures,
} from './support/log-page';
import { adminLogs, type LogRowJson, type SeededLogs, seedLogs } from './support/log-seed';
import { bodyBackground } from './support/page-state';
import { startConsoleTarget, type ConsoleTarget } from './support/target';

// Each test drives a real browser; give it more than the root config's 30 s default.
jest.setTimeout(60_000);

const isDark = (rgb: string) => {
  const [r, g, b] = (rgb.match(/\d+/g) ?? []).map(Number);
  return r + g + b < 3 * 100;
};

const sum = (rows: LogRowJson[], pick: (row: LogRowJson) => number) => rows.reduce((total, row) => total + pick(row), 0);

/**
 * The /log screen against the real server, its rows made by real actions (relay calls through fake upstreams with a
 * retry, an admin quota change, a redeemed code): the admin's view (columns, chips, retry path, price popover, user
 * dialog, filters), a common user's own view, and clearing logs before a time.
 */
describe('console usage logs (/log)', () => {
  let target: ConsoleTarget;
  let api: ApiSession;
  let seeded: SeededLogs;
  let admin: ConsoleBrowser;
  let adminFailures: { errors: string[] };
  const username = uniqueName('lg');

  beforeAll(async () => {
    target = await startConsoleTarget();
    api = await ApiSession.login(target.baseUrl, target.root.username, target.root.password);
    seeded = await seedLogs(target, api, username);
    admin = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    adminFailures = watchFailures(admin.page);
    await loginThroughUi(admin.page, target.root.username, target.root.password);
    await dismissDefaultPasswordWarning(admin.page);
  });

  afterAll(async () => {
    await admin?.close();
    await target?.stop();
    await Promise.all((seeded?.upstreams ?? []).map((fake) => fake.close()));
  });

  afterEach(() => {
    expect(adminFailures.errors).toEqual([]);
  });

  const openLogs = async (page: Page, count: number) => {
    await page.goto('/log');
    await waitForLogRows(page, count);
  };

  it('shows the admin every row with the admin columns, the stat chips and the retry channel path', async () => {
    const { page } = admin;
    const all = await adminLogs(api);
    await openLogs(page, all.total);
    expect(await columnHeaders(page)).toEqual([
      '时间',
      '渠道',
      '用户',
      '令牌',
      '类型',
      '模型',
      '用时/首字',
      '提示',
      '补全',
      '花费',
      '重试',
      '详情',
    ]);

    const consumed = all.items.filter((row) => row.type === 2);
    expect(consumed).toHaveLength(3);
    const now = Math.floor(Date.now() / 1000);
    const recent = consumed.filter((row) => row.created_at >= now - 60);
    await expectText(page.getByTestId('log-stat-quota'), `消耗额度: ${statDollars(sum(consumed, (row) => row.quota))}`);
    await expectText(page.getByTestId('log-stat-rpm'), `RPM: ${recent.length}`);
    await expectText(page.getByTestId('log-stat-tpm'), `TPM: ${sum(recent, (row) => row.prompt_tokens + row.completion_tokens)}`);

    // gpt-4o-mini went to the failing channel first, then to the working one; gpt-3.5-turbo only the working one has.
    const { failing, working } = seeded.channels;
    const retried = logRow(page, 'gpt-4o-mini', seeded.user.tokenName);
    await expectText(retried.getByTestId('log-retry'), `渠道：${failing}->${working}`);
    await expectText(retried.getByTestId('log-channel'), String(working));
    await expectText(logRow(page, 'gpt-3.5-turbo', seeded.user.tokenName).getByTestId('log-retry'), `渠道：${working}`);

    const row = consumed.find((item) => item.model_name === 'gpt-4o-mini' && item.username === username)!;
    await expectText(retried.getByTestId('log-cost'), dollars(row.quota, 6));
    await expectText(retried.getByTestId('log-prompt'), String(row.prompt_tokens));
    await expectText(retried.getByTestId('log-completion'), String(row.completion_tokens));
    await expectText(retried.getByTestId('log-use-time'), '非流');

    // Top-up and admin rows carry no token, model, tokens or cost.
    const topUp = logRows(page).filter({ has: page.getByTestId('log-type').filter({ hasText: '充值' }) });
    await expectText(topUp, '通过兑换码充值');
    expect(await topUp.getByTestId('log-token').count()).toBe(0);
    expect(await topUp.getByTestId('log-cost').count()).toBe(0);
    expect(await topUp.getByTestId('log-retry').count()).toBe(0);
  });

  it('opens the price breakdown built from the row’s other', async () => {
    const { page } = admin;
    const all = await adminLogs(api);
    await openLogs(page, all.total);
    const row = all.items.find((item) => item.type === 2 && item.model_name === 'gpt-4o-mini' && item.username === username)!;
    const other = JSON.parse(row.other) as Record<string, number>;
    // new-api's ratios for gpt-4o-mini: 0.075, completion 4; the default group 1.
    expect(other).toMatchObject({ model_ratio: 0.075, completion_ratio: 4, group_ratio: 1, model_price: -1 });

    const trigger = logRow(page, 'gpt-4o-mini', seeded.user.tokenName).getByTestId('log-price');
    await expectText(trigger, '模型: 0.075 * 分组: 1');
    await trigger.click();
    const popover = page.getByTestId('log-price-breakdown');
    await popover.waitFor();
    const shown = await popover.innerText();
    for (const line of expectedBreakdownZh(row)) expect(shown).toContain(line);
    expect(shown).toContain(row.content);
    await page.keyboard.press('Escape');
    await popover.waitFor({ state: 'hidden' });
  });

  it('opens the user dialog from the avatar with balance, used quota and request count', async () => {
    const { page } = admin;
    const all = await adminLogs(api);
    await openLogs(page, all.total);
    await page
      .getByRole('button', { name: `查看用户 ${username}` })
      .first()
      .click();
    const dialog = page.getByRole('dialog', { name: '用户信息' });
    const info = dialog.getByTestId('log-user-info');
    await info.waitFor();
    const user = await api.must<{ quota: number; used_quota: number; request_count: number }>('GET', `/api/user/${seeded.user.id}`);
    expect(user.request_count).toBe(2);
    const text = await info.innerText();
    expect(text).toContain(`用户名: ${username}`);
    expect(text).toContain(`余额: ${dollars(user.quota)}`);
    expect(text).toContain(`已用额度：${dollars(user.used_quota)}`);
    expect(text).toContain(`请求次数：${user.request_count}`);
    await dialog.getByRole('button', { name: '确定' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });

  it('filters by model, token, username, channel and type, as the server does', async () => {
    const { page } = admin;
    const all = await adminLogs(api);
    await openLogs(page, all.total);

    await page.getByLabel('模型名称').fill('gpt-3.5-turbo');
    await waitForLogRows(page, (await adminLogs(api, 'model_name=gpt-3.5-turbo')).total);
    expect(await logRows(page).count()).toBe(1);
    await expectText(logRows(page).first().getByTestId('log-use-time'), '流');
    await page.getByLabel('模型名称').fill('');

    await page.getByLabel('令牌名称').fill(seeded.rootTokenName);
    await waitForLogRows(page, 1);
    await expectText(
      page.getByTestId('log-stat-quota'),
      `消耗额度: ${statDollars(sum((await adminLogs(api, 'token_name=root-key')).items, (row) => row.quota))}`,
    );
    await page.getByLabel('令牌名称').fill('');

    await page.getByLabel('用户名称').fill(username);
    const own = await adminLogs(api, `username=${username}`);
    expect(own.items.map((row) => row.type).sort()).toEqual([1, 2, 2, 3]);
    await waitForLogRows(page, own.total);
    await expectText(
      page.getByTestId('log-stat-quota'),
      `消耗额度: ${statDollars(sum(own.items, (row) => (row.type === 2 ? row.quota : 0)))}`,
    );

    await page.getByRole('combobox', { name: '类型' }).click();
    await page.getByRole('option', { name: '管理' }).click();
    await waitForLogRows(page, 1);
    await expectText(logRows(page).first(), '管理员将用户额度从');
    await page.getByRole('combobox', { name: '类型' }).click();
    await page.getByRole('option', { name: '充值' }).click();
    await waitForLogRows(page, 1);
    await expectText(logRows(page).first(), '通过兑换码充值');
    await page.getByRole('combobox', { name: '类型' }).click();
    // The empty choice is named "clear the value" for assistive technology; it reads 全部.
    await page.getByRole('option').filter({ hasText: '全部' }).click();
    await waitForLogRows(page, own.total);
    await page.getByLabel('用户名称').fill('');

    // The channel filter matches the channel that answered: none for the failing one.
    await page.getByLabel('渠道 ID').fill(String(seeded.channels.working));
    await waitForLogRows(page, 3);
    await page.getByLabel('渠道 ID').fill(String(seeded.channels.failing));
    await waitForLogRows(page, 0);
    await expectText(page, '没有找到');
  });

  it('remembers the page size locally', async () => {
    const { page } = admin;
    const all = await adminLogs(api);
    await openLogs(page, all.total);
    await page.getByRole('combobox', { name: /每页行数/ }).click();
    await page.getByRole('option', { name: '20', exact: true }).click();
    await page.waitForURL((url) => url.searchParams.get('perPage') === '20');
    // The URL changes before react-admin's store has written the list's parameters to localStorage: leaving the
    // page before that write (a loaded machine) would lose the preference this test is about.
    await page.waitForFunction(() =>
      Object.entries((globalThis as unknown as { localStorage: Record<string, string> }).localStorage).some(
        ([key, value]) => key.endsWith('.listParams') && value.includes('"perPage":20'),
      ),
    );
    await page.goto('/');
    const listed = page.waitForRequest((request) => request.url().includes('/api/log/?') && request.url().includes('page_size=20'));
    await page.goto('/log');
    await listed;
    await waitForLogRows(page, all.total);
    await expectText(page.getByRole('combobox', { name: /每页行数/ }), '20');
  });

  it('shows a common user only their own rows, without the admin columns, filters and purge (en, dark, 375 px)', async () => {
    const user = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'en-US', viewport: { width: 375, height: 812 } });
    const failures = watchFailures(user.page);
    try {
      const { page } = user;
      await loginThroughUi(page, username, seeded.user.password, 'en');
      await page.getByRole('button', { name: 'Switch to dark mode' }).click();
      await page.getByRole('button', { name: 'Switch to light mode' }).waitFor();
      expect(isDark(await bodyBackground(page))).toBe(true);
      const own = await seeded.user.session.must<{ items: LogRowJson[]; total: number }>('GET', '/api/log/self?p=1&page_size=100');
      expect(own.total).toBe(4);
      await openLogs(page, own.total);
      expect(await columnHeaders(page)).toEqual([
        'Time',
        'Token',
        'Type',
        'Model',
        'Time used / first token',
        'Prompt',
        'Completion',
        'Cost',
        'Details',
      ]);
      expect(await page.getByLabel('Channel ID').count()).toBe(0);
      expect(await page.getByLabel('Username').count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Clear logs' }).count()).toBe(0);
      await expectText(
        page.getByTestId('log-stat-quota'),
        `Consumed: ${statDollars(sum(own.items, (row) => (row.type === 2 ? row.quota : 0)))}`,
      );

      const stream = logRow(page, 'gpt-3.5-turbo', seeded.user.tokenName);
      await expectText(stream.getByTestId('log-use-time'), 'Stream');
      await stream.getByTestId('log-first-token').waitFor();
      await stream.getByTestId('log-price').click();
      await expectText(page.getByTestId('log-price-breakdown'), 'Prompt: $');
      await page.keyboard.press('Escape');

      // Usable at 375 px: the page itself does not scroll sideways (the table scrolls in its own box).
      const overflow = await page.evaluate(() => {
        const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
          .documentElement;
        return root.scrollWidth - root.clientWidth;
      });
      expect(overflow).toBeLessThanOrEqual(0);
      expect(failures.errors).toEqual([]);
    } finally {
      await user.close();
    }
  });

  it('shows the server’s refusal when the signed-in admin has lost the role', async () => {
    const name = uniqueName('lx');
    const id = await api.createUser(name, 'password123');
    await api.must('POST', '/api/user/manage', { id, action: 'promote' });
    const demoted = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    const failures = watchFailures(demoted.page);
    try {
      const { page } = demoted;
      await loginThroughUi(page, name, 'password123');
      await api.must('POST', '/api/user/manage', { id, action: 'demote' });
      // The browser still holds the admin role it logged in with; the server refuses the admin routes.
      await page.goto('/log');
      await expectText(page, '无权进行此操作，权限不足');
      expect(await logRows(page).count()).toBe(0);
      expect(failures.errors).toEqual([]);
    } finally {
      await demoted.close();
    }
  });

  it('clears logs before a chosen time, stating the count, and the server then holds only the newer rows', async () => {
    const { page } = admin;
    const before = await adminLogs(api);
    const older = before.items.filter((row) => row.created_at < seeded.cutoff);
    expect(older.length).toBeGreaterThan(0);
    expect(older.length).toBeLessThan(before.total);
    await openLogs(page, before.total);

    await page.getByRole('button', { name: '清除日志' }).click();
    const dialog = page.getByRole('dialog', { name: '清除历史日志' });
    const when = dialog.getByLabel('清除此时间之前的日志');
    await when.fill('');
    await dialog.getByRole('button', { name: '下一步' }).click();
    await expectText(dialog, '请选择时间');

    await when.fill(localDateTime(seeded.cutoff));
    await dialog.getByRole('button', { name: '下一步' }).click();
    await expectText(dialog.getByTestId('purge-confirm'), `之前共有 ${older.length} 条日志`);
    expect((await adminLogs(api)).total).toBe(before.total);
    await dialog.getByRole('button', { name: '删除' }).click();
    await expectText(page, `${older.length} 条日志已清理！`);

    const after = await adminLogs(api);
    expect(after.total).toBe(before.total - older.length);
    expect(after.items.every((row) => row.created_at >= seeded.cutoff)).toBe(true);
    await waitForLogRows(page, after.total);
  });
});
