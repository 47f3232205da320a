import { launchConsoleBrowser, uniqueName, type ConsoleBrowser } from './support/browser';
import { expectText, fillLogin } from './support/console-actions';
import { ApiSession } from './support/api-client';
import { bodyBackground, waitForTableRows } from './support/page-state';
import { rowOpacity } from './support/redemption-list';
import {
  gotoTokens,
  horizontalOverflow,
  openedUrls,
  openUserConsole,
  recordWindowOpen,
  readClipboard,
  searchTokens,
  tokenDrawer,
  tokenRow,
  tokensNamed,
  type PageFaults,
  type UserConsole,
} from './support/token-console';

// Each test drives a real browser; give it more than the root config's 30 s default.
jest.setTimeout(60_000);

const KEY_PATTERN = /^[0-9a-zA-Z]{48}$/;

describe('console tokens: the list', () => {
  let opened: UserConsole | undefined;
  let user: ConsoleBrowser;
  let faults: PageFaults;
  // Token names are at most 30 bytes.
  const prefix = uniqueName('k').slice(0, 8);
  const seeded = (index: number) => `${prefix}s${index}`;
  const api = () => opened!.api;

  beforeAll(async () => {
    opened = await openUserConsole(async (_root, session) => {
      for (let index = 0; index < 11; index++) {
        await session.must('POST', '/api/token/', { name: seeded(index), remain_quota: 500000, expired_time: -1 });
      }
    });
    ({ browser: user, faults } = await opened.openBrowser({ locale: 'zh-CN' }));
  });

  afterAll(async () => {
    await opened?.close();
  });

  afterEach(() => {
    expect(faults.errors).toEqual([]);
    expect(faults.serverErrors).toEqual([]);
  });

  it('lands on /token after login, with the warning, the columns and ten tokens a page', async () => {
    const { page } = user;
    await page.waitForURL((url) => url.pathname === '/token');
    await expectText(page, '令牌无法精确控制使用额度，请勿直接将令牌分发给用户。');
    await expectText(page, '我的令牌');
    await waitForTableRows(page, 10);
    for (const header of ['名称', '状态', '已用额度', '剩余额度', '创建时间', '过期时间']) {
      await page.getByRole('columnheader', { name: header, exact: true }).waitFor();
    }
    // Newest first: the last seeded token heads the list.
    const first = page.getByRole('row').nth(1);
    await first.getByRole('cell', { name: seeded(10), exact: true }).waitFor();
    await expectText(first, '已启用');
    await expectText(first, '$1.00');
    await expectText(first, '永不过期');

    await page.getByRole('button', { name: '前往下一页' }).click();
    await page.waitForURL((url) => url.searchParams.get('page') === '2');
    await waitForTableRows(page, 1);
    await tokenRow(page, seeded(0)).waitFor();

    await page.getByRole('combobox', { name: /每页行数/ }).click();
    for (const size of ['10', '20', '50', '100']) await page.getByRole('option', { name: size, exact: true }).waitFor();
    await page.getByRole('option', { name: '20', exact: true }).click();
    await waitForTableRows(page, 11);
  });

  it('sends a visitor who is not logged in to the login page, and back to /token after logging in', async () => {
    const visitor = await launchConsoleBrowser({ baseUrl: opened!.target.baseUrl, locale: 'zh-CN' });
    try {
      await visitor.page.goto('/token');
      await visitor.page.waitForURL((url) => url.pathname === '/login');
      await fillLogin(visitor.page, opened!.username, opened!.password);
      await visitor.page.waitForURL((url) => url.pathname === '/token');
      await tokenRow(visitor.page, seeded(10)).waitFor();
    } finally {
      await visitor.close();
    }
  });

  it('searches by name and by key, with or without sk-', async () => {
    const { page } = user;
    await gotoTokens(page);
    await waitForTableRows(page, 10);
    await searchTokens(page, { name: seeded(3) });
    await waitForTableRows(page, 1);
    await tokenRow(page, seeded(3)).waitFor();

    const [target] = await tokensNamed(api(), seeded(7));
    await searchTokens(page, { name: '', key: `sk-${target.key.slice(0, 20)}` });
    await waitForTableRows(page, 1);
    await tokenRow(page, seeded(7)).waitFor();
    await searchTokens(page, { key: target.key.slice(10, 30) });
    await waitForTableRows(page, 1);
    await tokenRow(page, seeded(7)).waitFor();

    await searchTokens(page, { key: 'no-such-key-anywhere' });
    await expectText(page, '没有符合搜索条件的令牌。');
    // Both inputs empty: the first page again.
    await searchTokens(page, { key: '' });
    await waitForTableRows(page, 10);
  });

  it('views and copies a key with sk-, and copies the selected tokens', async () => {
    const { page } = user;
    const [token] = await tokensNamed(api(), seeded(2));
    expect(token.key).toMatch(KEY_PATTERN);
    await gotoTokens(page);
    await searchTokens(page, { name: seeded(2) });
    await waitForTableRows(page, 1);
    const row = tokenRow(page, seeded(2));
    await row.getByRole('button', { name: '查看', exact: true }).click();
    await expectText(page.getByTestId('token-key'), `sk-${token.key}`);
    await page.keyboard.press('Escape');
    await row.getByRole('button', { name: '复制', exact: true }).click();
    await expectText(page, '已复制到剪贴板！');
    expect(await readClipboard(page)).toBe(`sk-${token.key}`);

    // The list toolbar's button; the bulk toolbar's twin stays collapsed until rows are selected.
    await page.getByRole('button', { name: '复制所选令牌到剪贴板' }).first().click();
    await expectText(page, '请至少选择一个令牌！');
    await searchTokens(page, { name: `${prefix}s1` });
    await waitForTableRows(page, 2);
    await tokenRow(page, seeded(1)).getByRole('checkbox').check();
    await tokenRow(page, seeded(10)).getByRole('checkbox').check();
    await page.getByRole('button', { name: '复制所选令牌到剪贴板' }).click();
    await expectText(page, '已复制到剪贴板！');
    const [one] = await tokensNamed(api(), seeded(1));
    const [ten] = await tokensNamed(api(), seeded(10));
    expect(await readClipboard(page)).toBe(`${seeded(10)}    sk-${ten.key}\n${seeded(1)}    sk-${one.key}\n`);
  });

  it('disables a token (greyed) and enables it again', async () => {
    const { page } = user;
    const name = seeded(4);
    await gotoTokens(page);
    await searchTokens(page, { name });
    await waitForTableRows(page, 1);
    const row = tokenRow(page, name);
    expect(await rowOpacity(row)).toBe(1);
    await row.getByRole('button', { name: '禁用', exact: true }).click();
    await expectText(page, '操作成功完成！');
    await expectText(row, '已禁用');
    expect(await rowOpacity(row)).toBeLessThan(1);
    expect((await tokensNamed(api(), name))[0].status).toBe(2);

    await row.getByRole('button', { name: '启用', exact: true }).click();
    await expectText(row, '已启用');
    await row.getByRole('button', { name: '禁用', exact: true }).waitFor();
    expect(await rowOpacity(row)).toBe(1);
    expect((await tokensNamed(api(), name))[0].status).toBe(1);
  });

  it('deletes a token after confirmation', async () => {
    const { page } = user;
    const name = seeded(5);
    await gotoTokens(page);
    await searchTokens(page, { name });
    await waitForTableRows(page, 1);
    await tokenRow(page, name).getByRole('button', { name: '删除', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await expectText(dialog, '确定是否要删除此令牌？');
    await expectText(dialog, '此修改将不可逆');
    await dialog.getByRole('button', { name: '确定', exact: true }).click();
    await expectText(page, '操作成功完成！');
    await expectText(page, '没有符合搜索条件的令牌。');
    expect(await tokensNamed(api(), name)).toHaveLength(0);
  });

  it('opens the chat clients with the key and the server address, as new-api builds their links', async () => {
    const { page } = user;
    const [token] = await tokensNamed(api(), seeded(8));
    await gotoTokens(page);
    await searchTokens(page, { name: seeded(8) });
    await waitForTableRows(page, 1);
    await tokenRow(page, seeded(8)).getByRole('button', { name: '聊天', exact: true }).click();
    await expectText(page, '管理员未设置聊天链接');

    await opened!.root.setOption('ChatLink', 'https://chat.example.com');
    await opened!.root.setOption('ServerAddress', 'https://gw.example.com');
    await gotoTokens(page);
    await recordWindowOpen(page);
    await searchTokens(page, { name: seeded(8) });
    await waitForTableRows(page, 1);
    const row = tokenRow(page, seeded(8));
    await row.getByRole('button', { name: '聊天', exact: true }).click();
    const openMenu = async () => {
      await row.getByRole('button', { name: '聊天客户端' }).click();
      return page.getByRole('menu');
    };
    let menu = await openMenu();
    expect(await menu.getByRole('menuitem', { name: 'ChatGPT Web & Midjourney' }).getAttribute('aria-disabled')).toBe('true');
    await menu.getByRole('menuitem', { name: 'AMA 问天（BotGem）' }).click();
    menu = await openMenu();
    await menu.getByRole('menuitem', { name: 'OpenCat' }).click();
    menu = await openMenu();
    await menu.getByRole('menuitem', { name: 'ChatGPT Next Web' }).click();
    const address = encodeURIComponent('https://gw.example.com');
    const web = `https://chat.example.com/#/?settings={"key":"sk-${token.key}","url":"https://gw.example.com"}`;
    expect(await openedUrls(page)).toEqual([
      web,
      `ama://set-api-key?server=${address}&key=sk-${token.key}`,
      `opencat://team/join?domain=${address}&token=sk-${token.key}`,
      web,
    ]);
  });

  it('works in English, in the dark theme and at 375 px, from the empty state to a first token', async () => {
    const username = uniqueName('n');
    await opened!.root.createUser(username, 'password123');
    const { browser, faults: mobileFaults } = await opened!.openBrowser({
      locale: 'en-US',
      viewport: { width: 375, height: 800 },
      as: { username, password: 'password123' },
    });
    const { page } = browser;
    await page.waitForURL((url) => url.pathname === '/token');
    await expectText(page, 'Tokens cannot precisely limit usage quota; do not hand tokens directly to users.');
    await expectText(page, 'No tokens yet. Add one to call the API.');
    const light = await bodyBackground(page);
    await page.getByRole('button', { name: 'Switch to dark mode' }).click();
    await page.waitForFunction((before) => {
      const globals = globalThis as unknown as {
        document: { body: unknown };
        getComputedStyle(element: unknown): { backgroundColor: string };
      };
      return globals.getComputedStyle(globals.document.body).backgroundColor !== before;
    }, light);

    await page.getByRole('button', { name: 'Add token' }).last().click();
    const drawer = tokenDrawer(page);
    await expectText(drawer, 'Create a new token');
    await drawer.getByLabel('Name', { exact: false }).fill('phone');
    await drawer.getByRole('button', { name: '50$', exact: true }).click();
    await expectText(drawer, 'Equals $50.00');
    await drawer.getByRole('button', { name: 'Submit' }).click();
    await expectText(page, 'Token created, click copy in the list to get its key!');
    const card = page.getByRole('listitem').filter({ hasText: 'phone' });
    await expectText(card, 'Enabled');
    await expectText(card, '$50.00');
    await expectText(card, 'Never expires');
    expect(await horizontalOverflow(page)).toBe(false);

    const userApi = await ApiSession.login(opened!.target.baseUrl, username, 'password123');
    const [phone] = await tokensNamed(userApi, 'phone');
    expect(phone).toMatchObject({ remain_quota: 25000000, status: 1, expired_time: -1 });
    expect(mobileFaults.errors).toEqual([]);
    expect(mobileFaults.serverErrors).toEqual([]);
  });
});
