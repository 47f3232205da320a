import type { Page } from 'playwright-core';
import { EpayFake } from '../fakes/epay/epay-fake';
import { openAdminConsole, type AdminConsole } from './support/admin-console';
import { ApiSession } from './support/api-client';
import { launchConsoleBrowser, uniqueName } from './support/browser';
import { dismissDefaultPasswordWarning, expectText, loginThroughUi } from './support/console-actions';
import { bodyBackground, waitForTableRows } from './support/page-state';
import { searchUsers, userRow, waitForRowCount } from './support/user-list';

jest.setTimeout(90_000);

interface Order {
  trade_no: string;
  user_id: number;
  username: string;
  amount: number;
  money: number;
  status: string;
  payment_method: string;
  complete_time: number;
}

/** The rows of the orders table as shown, cell texts per row. */
const shownRows = async (page: Page): Promise<string[][]> =>
  page
    .locator('tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) =>
        Array.from((row as unknown as { cells: ArrayLike<{ textContent: string | null }> }).cells, (cell) => cell.textContent ?? ''),
      ),
    );

/** How a row of the admins' table reads in Chinese: order number, user, amount, quota, payable, paid, method, status. */
const expectedRow = (order: Order) => [
  order.trade_no,
  `${order.username}（#${order.user_id}）`,
  String(order.amount),
  `$${order.amount.toFixed(2)}`,
  `${order.money.toFixed(2)} 元`,
  order.status === 'pending' ? '-' : order.status === 'failed' ? '1.00 元' : `${order.money.toFixed(2)} 元`,
  order.payment_method === 'wx' ? '微信' : '支付宝',
  { success: '已支付', failed: '失败', pending: '待支付' }[order.status],
];

const overflow = (page: Page) =>
  page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
      .documentElement;
    return root.scrollWidth - root.clientWidth;
  });

/**
 * The admins' view of every user's top-up orders (/topup/orders): orders placed through the API by two users, sent
 * to the fake Epay gateway and paid (or failed on the wrong money) by its signed callback over HTTP; an admin opens
 * the screen from the wallet and from a user's row, filters by user, and reads what the server's admin route holds;
 * an ordinary user is turned away; the screen reads in English on a 375 px phone, in the dark theme too.
 */
describe('console: top-up orders of all users (admin)', () => {
  let consoleApp: AdminConsole;
  let fake: EpayFake;
  const names = [uniqueName('ta'), uniqueName('tb')];
  const ids: number[] = [];
  const sessions: ApiSession[] = [];

  /** POST /api/user/pay, then the form to the fake's submit.php, as the console does: the trade number. */
  const placeOrder = async (session: ApiSession, amount: number, method: 'zfb' | 'wx'): Promise<string> => {
    const answer = (await session.call('POST', '/api/user/pay', { amount, payment_method: method })) as unknown as {
      message: string;
      data: Record<string, string>;
      url: string;
    };
    if (answer.message !== 'success') throw new Error(`pay refused: ${JSON.stringify(answer)}`);
    const response = await fetch(answer.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(answer.data).toString(),
    });
    expect(response.status).toBe(200);
    return answer.data.out_trade_no;
  };
  const allOrders = () => consoleApp.api.must<Order[]>('GET', '/api/user/topup?page_size=100');

  beforeAll(async () => {
    fake = await EpayFake.start();
    consoleApp = await openAdminConsole(async (api) => {
      for (const name of names) ids.push(await api.createUser(name, 'password123'));
    });
    const { api, target } = consoleApp;
    await api.setOption('ServerAddress', target.baseUrl);
    await api.setOption('PayAddress', fake.payAddress);
    await api.setOption('EpayId', fake.pid);
    await api.setOption('EpayKey', fake.key);
    for (const name of names) sessions.push(await ApiSession.login(target.baseUrl, name, 'password123'));

    const paidA = await placeOrder(sessions[0], 3, 'zfb');
    await placeOrder(sessions[0], 2, 'wx');
    const wrongMoney = await placeOrder(sessions[1], 4, 'zfb');
    const paidB = await placeOrder(sessions[1], 1, 'wx');
    expect(await fake.notify(paidA)).toBe('success');
    expect(await fake.notify(paidB)).toBe('success');
    expect(await fake.notify(wrongMoney, { money: '1.00' })).toBe('success');
  });

  afterAll(async () => {
    await consoleApp?.close();
    await fake?.close();
  });

  it('lists every user s orders, newest first, as the server holds them, opened from the wallet', async () => {
    const held = await allOrders();
    expect(held.map((order) => [order.username, order.amount, order.status])).toEqual([
      [names[1], 1, 'success'],
      [names[1], 4, 'failed'],
      [names[0], 2, 'pending'],
      [names[0], 3, 'success'],
    ]);
    const { page } = consoleApp.admin;
    await page.goto('/topup');
    await page.getByRole('link', { name: '全部用户订单' }).click();
    await page.waitForURL((url) => url.pathname === '/topup/orders');
    await expectText(page, '所有用户的充值订单');
    await waitForTableRows(page, 4);
    await expectText(page, '1-4，共 4 条');
    const rows = await shownRows(page);
    expect(rows.map((cells) => cells.slice(0, 8))).toEqual(held.map(expectedRow));
    // Created is always shown; completed only once paid or failed.
    for (const [index, order] of held.entries()) {
      expect(rows[index][8]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      expect(rows[index][9]).toMatch(order.status === 'pending' ? /^-$/ : /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    }
  });

  it('filters by user, picked by name, and opens one user s orders from the user list', async () => {
    const { page } = consoleApp.admin;
    await page.goto('/topup/orders');
    await waitForTableRows(page, 4);
    const filter = page.getByRole('combobox', { name: '用户' });
    await filter.fill(names[1]);
    await page.getByRole('option', { name: `${names[1]}（#${ids[1]}）` }).click();
    await waitForTableRows(page, 2);
    const shown = await shownRows(page);
    const held = await consoleApp.api.must<Order[]>('GET', `/api/user/topup?user_id=${ids[1]}`);
    expect(held).toHaveLength(2);
    expect(shown.map((cells) => cells.slice(0, 8))).toEqual(held.map(expectedRow));
    expect(new URL(page.url()).searchParams.get('filter')).toBe(JSON.stringify({ user_id: ids[1] }));

    await page.goto('/user');
    await searchUsers(page, names[0]);
    await waitForRowCount(page, 1);
    await userRow(page, names[0]).getByRole('link', { name: '充值订单' }).click();
    await page.waitForURL((url) => url.pathname === '/topup/orders');
    await waitForTableRows(page, 2);
    const own = await consoleApp.api.must<Order[]>('GET', `/api/user/topup?user_id=${ids[0]}`);
    expect((await shownRows(page)).map((cells) => cells.slice(0, 8))).toEqual(own.map(expectedRow));
    expect(await page.getByRole('combobox', { name: '用户' }).inputValue()).toBe(`${names[0]}（#${ids[0]}）`);
  });

  it('is for administrators only: a user sees no link in the wallet and is refused on the screen', async () => {
    const browser = await launchConsoleBrowser({ baseUrl: consoleApp.target.baseUrl, locale: 'zh-CN' });
    try {
      const { page } = browser;
      await loginThroughUi(page, names[0], 'password123');
      await page.goto('/topup');
      await expectText(page, '充值记录');
      expect(await page.getByRole('link', { name: '全部用户订单' }).count()).toBe(0);
      await page.goto('/topup/orders');
      await expectText(page, /拒绝访问|权限/);
      expect(await page.locator('tbody tr').count()).toBe(0);
      // The server refuses the admin route too.
      expect((await sessions[0].call('GET', '/api/user/topup')).success).toBe(false);
    } finally {
      await browser.close();
    }
  });

  it('reads in English on a 375 px phone, in the dark theme too, without scrolling sideways', async () => {
    const phone = await launchConsoleBrowser({
      baseUrl: consoleApp.target.baseUrl,
      locale: 'en-US',
      viewport: { width: 375, height: 740 },
    });
    try {
      const { page } = phone;
      await loginThroughUi(page, consoleApp.target.root.username, consoleApp.target.root.password, 'en');
      await dismissDefaultPasswordWarning(page);
      await page.goto('/topup/orders');
      const items = page.locator('.RaList-content li');
      await items.nth(3).waitFor();
      expect(await items.count()).toBe(4);
      await expectText(page, '1-4 of 4');
      const held = await allOrders();
      const texts = await items.allInnerTexts();
      expect(texts[0]).toContain('Paid');
      expect(texts[0]).toContain('7.30 CNY');
      expect(texts[0]).toContain(`${names[1]} (#${ids[1]})`);
      expect(texts[0]).toContain(held[0].trade_no);
      expect(texts[0]).toContain('WeChat Pay');
      expect(texts[1]).toContain('Failed');
      expect(texts[2]).toContain('Awaiting payment');
      expect(texts[3]).toContain('Alipay');
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      await page.getByRole('button', { name: 'Switch to dark mode' }).click();
      await page.getByRole('button', { name: 'Switch to light mode' }).waitFor();
      const [red, green, blue] = (await bodyBackground(page)).match(/\d+/g)!.map(Number);
      expect(red + green + blue).toBeLessThan(200);
      expect(await items.count()).toBe(4);
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      // The user filter is there on the phone, inside the screen's width.
      const box = await page.getByRole('combobox', { name: 'User' }).boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(375);
    } finally {
      await phone.close();
    }
  });

  it('pages through more orders than a page holds: a full page offers the next, the short last one gives the total', async () => {
    for (let i = 0; i < 7; i++) await placeOrder(sessions[1], 10 + i, i % 2 === 0 ? 'wx' : 'zfb');
    const held = await allOrders();
    expect(held).toHaveLength(11);
    const { page } = consoleApp.admin;
    await page.goto('/topup/orders?page=1&perPage=10');
    await waitForTableRows(page, 10);
    expect((await shownRows(page)).map((cells) => cells[0])).toEqual(held.slice(0, 10).map((order) => order.trade_no));
    await page.getByRole('button', { name: '前往下一页' }).click();
    await waitForTableRows(page, 1);
    expect((await shownRows(page)).map((cells) => cells.slice(0, 8))).toEqual([expectedRow(held[10])]);
    await expectText(page, '11-11，共 11 条');
  });
});
