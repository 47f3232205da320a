import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { parseCsv } from '../e2e/statement-support';
import { openAdminConsole, type AdminConsole } from './support/admin-console';
import { ApiSession } from './support/api-client';
import { launchConsoleBrowser, uniqueName, type ConsoleBrowser } from './support/browser';
import { expectText, loginThroughUi } from './support/console-actions';
import { bodyBackground, waitForTableRows } from './support/page-state';
import { searchUsers, userRow, waitForRowCount } from './support/user-list';

jest.setTimeout(90_000);

interface Line {
  id: number;
  kind: string;
  delta: number;
  balance: number;
}

/** The rows of the statement table as shown: [kind, change, balance after] per row. */
const shownRows = async (page: Page): Promise<string[][]> =>
  page
    .locator('tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) =>
        Array.from((row as unknown as { cells: ArrayLike<{ textContent: string | null }> }).cells, (cell) => cell.textContent ?? ''),
      ),
    )
    .then((rows) => rows.map((cells) => [cells[1], cells[2], cells[3]]));

/** Saves the CSV the screen's download button produces and returns its file name and records. */
const downloadCsv = async (page: Page): Promise<{ name: string; records: string[][] }> => {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: /下载 CSV|Download CSV/ }).click(),
  ]);
  const path = await download.path();
  return { name: download.suggestedFilename(), records: parseCsv(readFileSync(path!, 'utf8')) };
};

/**
 * The statement screens: a user opens theirs from the wallet, filters it by kind and downloads it as CSV; an admin
 * opens any user's from the user list's row action and sees which admin changed the quota; on a phone the essential
 * columns remain. Data is made through the API (an admin edit, a redemption code), and what the screens show is
 * checked against what the server's statement route then holds.
 */
describe('console statement screens', () => {
  let consoleApp: AdminConsole;
  let user: ConsoleBrowser;
  let userApi: ApiSession;
  const username = uniqueName('st');
  let userId = 0;

  const statementOf = (api: ApiSession, path: string) => api.must<{ items: Line[]; total: number }>('GET', path);

  beforeAll(async () => {
    consoleApp = await openAdminConsole(async (api) => {
      userId = await api.createUser(username, 'password123');
      const form = await api.must<Record<string, unknown>>('GET', `/api/user/${userId}`);
      await api.must('PUT', '/api/user/', { ...form, password: '', quota: 2_500_000 });
    });
    const { api, target } = consoleApp;
    const [key] = await api.must<string[]>('POST', '/api/redemption/', { name: 'statement', quota: 1_000_000, count: 1 });
    userApi = await ApiSession.login(target.baseUrl, username, 'password123');
    await userApi.must('POST', '/api/user/topup', { key });
    user = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    await loginThroughUi(user.page, username, 'password123');
  });

  afterAll(async () => {
    await user?.close();
    await consoleApp?.close();
  });

  it('shows a user their statement from the wallet, filters it by kind and downloads the same lines as CSV', async () => {
    const { page } = user;
    await page.goto('/topup');
    await page.getByRole('link', { name: '账户流水' }).click();
    await page.waitForURL((url) => url.pathname === '/statement');
    await expectText(page, '兑换码充值');
    const held = await statementOf(userApi, '/api/statement/self?page_size=100');
    expect(held.items.map((line) => [line.kind, line.delta, line.balance])).toEqual([
      ['redemption', 1_000_000, 3_500_000],
      ['admin_adjustment', 2_500_000, 2_500_000],
    ]);
    await waitForTableRows(page, 2);
    expect(await shownRows(page)).toEqual([
      ['兑换码充值', '+$2.00', '$7.00'],
      ['管理员调整', '+$5.00', '$5.00'],
    ]);
    const adjustment = page.locator('tbody tr').nth(1);
    await expectText(adjustment, '从 $0.00 修改为 $5.00');
    // The owner sees that an admin acted, not which one.
    await expectText(adjustment, /^管理员$/);
    await expectText(page.locator('tbody tr').first(), `兑换码 #`);
    await expectText(page.locator('tbody tr').first(), '兑换码兑换');
    await expectText(adjustment, '管理员修改额度');

    await page.getByLabel('类型').click();
    await page.getByRole('option', { name: '管理员调整' }).click();
    await waitForTableRows(page, 1);
    expect((await shownRows(page))[0][0]).toBe('管理员调整');

    const csv = await downloadCsv(page);
    expect(csv.name).toBe(`statement-user-${userId}.csv`);
    const [header, ...records] = csv.records;
    expect(header.slice(0, 6)).toEqual(['id', 'created_at', 'time_utc', 'kind', 'delta', 'balance']);
    expect(records.map((record) => [Number(record[0]), record[3], Number(record[4]), Number(record[5])])).toEqual(
      held.items.filter((line) => line.kind === 'admin_adjustment').map((line) => [line.id, line.kind, line.delta, line.balance]),
    );
  });

  it('opens any user statement for an admin from the user list, naming the admin, with the whole CSV', async () => {
    const { page } = consoleApp.admin;
    await page.goto('/user');
    await searchUsers(page, username);
    await waitForRowCount(page, 1);
    await userRow(page, username).getByRole('link', { name: '账户流水' }).click();
    await page.waitForURL((url) => url.pathname === `/user/statement/${userId}`);
    await expectText(page, `${username} 的账户流水`);
    await waitForTableRows(page, 2);
    await expectText(page.locator('tbody tr').nth(1), `管理员 #${consoleApp.api.userId}`);
    const csv = await downloadCsv(page);
    expect(csv.name).toBe(`statement-user-${userId}.csv`);
    const held = await statementOf(consoleApp.api, `/api/statement/?user_id=${userId}`);
    expect(csv.records.slice(1).map((record) => Number(record[0]))).toEqual(held.items.map((line) => line.id));
    expect(csv.records[2][7]).toBe(String(consoleApp.api.userId));
  });

  it('keeps the essentials readable at 375 px, in the dark theme too', async () => {
    const phone = await launchConsoleBrowser({
      baseUrl: consoleApp.target.baseUrl,
      locale: 'en-US',
      viewport: { width: 375, height: 740 },
    });
    try {
      await loginThroughUi(phone.page, username, 'password123', 'en');
      await phone.page.goto('/statement');
      // A phone gets one list item per line: kind and change, then time and details, the balance after on the right.
      const items = phone.page.locator('.RaList-content li');
      await items.nth(1).waitFor();
      expect(await items.count()).toBe(2);
      expect(await items.allInnerTexts()).toEqual([
        expect.stringMatching(/^Redemption code\s+\+\$2\.00\s+\$7\.00\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d · Code #\d+$/),
        expect.stringMatching(/^Admin adjustment\s+\+\$5\.00\s+\$5\.00\s+[\d\- :]+ · Set from \$0\.00 to \$5\.00$/),
      ]);
      const overflow = () =>
        phone.page.evaluate(() => {
          const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
            .documentElement;
          return root.scrollWidth - root.clientWidth;
        });
      expect(await overflow()).toBeLessThanOrEqual(0);
      await phone.page.getByRole('button', { name: 'Switch to dark mode' }).click();
      await phone.page.getByRole('button', { name: 'Switch to light mode' }).waitFor();
      const [red, green, blue] = (await bodyBackground(phone.page)).match(/\d+/g)!.map(Number);
      expect(red + green + blue).toBeLessThan(200);
      expect(await items.count()).toBe(2);
      expect(await overflow()).toBeLessThanOrEqual(0);
      await expectText(phone.page, 'Download CSV');
    } finally {
      await phone.close();
    }
  });
});
