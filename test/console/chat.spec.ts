import { ApiSession } from './support/api-client';
import { launchConsoleBrowser, uniqueName, type ConsoleBrowser } from './support/browser';
import { expectText, loginThroughUi } from './support/console-actions';
import { watchPageFaults } from './support/page-watch';
import { startConsoleTarget, type ConsoleTarget } from './support/target';

jest.setTimeout(60_000);

const CHAT_LINK = 'https://chat.example.com';
const SERVER_ADDRESS = 'https://gateway.example.com';

interface TokenRow {
  id: number;
  name: string;
  key: string;
  status: number;
}

/** new-api's link: the chat app reads the key and the gateway address from the fragment. */
const expectedLink = (key: string) => `${CHAT_LINK}/#/?settings={"key":"sk-${key}","url":"${encodeURIComponent(SERVER_ADDRESS)}"}`;

describe('console chat pages', () => {
  let target: ConsoleTarget;
  let root: ApiSession;
  let user: ApiSession;
  let browser: ConsoleBrowser;
  let faults: () => string[];
  const username = uniqueName('c');

  const createToken = async (name: string, enabled: boolean): Promise<TokenRow> => {
    await user.must('POST', '/api/token/', { name, remain_quota: 0, expired_time: -1, unlimited_quota: true });
    const rows = await user.must<TokenRow[]>('GET', '/api/token/?p=0&size=100');
    const token = rows.find((row) => row.name === name);
    if (!token) throw new Error(`token ${name} not listed`);
    if (!enabled) await user.must('PUT', '/api/token/?status_only=true', { id: token.id, status: 2 });
    return token;
  };

  beforeAll(async () => {
    target = await startConsoleTarget();
    root = await ApiSession.login(target.baseUrl, target.root.username, target.root.password);
    await root.createUser(username, 'password123');
    user = await ApiSession.login(target.baseUrl, username, 'password123');
    await root.setOption('ChatLink', CHAT_LINK);
    await root.setOption('ServerAddress', SERVER_ADDRESS);
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    await browser.context.route(`${CHAT_LINK}/**`, (route) => route.fulfill({ contentType: 'text/html', body: '<p>Chat app loaded</p>' }));
    faults = watchPageFaults(browser.page);
    await loginThroughUi(browser.page, username, 'password123');
  });
  afterAll(async () => {
    await browser?.close();
    await target?.stop();
  });

  it('without an enabled token, /chat says so in red and opens /token after 1.5 s; /chat2link shows its loading text and does the same', async () => {
    const { page } = browser;
    await createToken('chat-off', false);
    await page.goto('/chat');
    const started = Date.now();
    const alert = page.getByRole('alert').filter({ hasText: '当前没有可用的启用令牌，请确认是否有令牌处于启用状态！' }).first();
    await alert.waitFor();
    await expectText(alert, '正在跳转......');
    await page.waitForURL((url) => url.pathname === '/token');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1200);
    expect(await page.locator('iframe').count()).toBe(0);

    await page.goto('/chat2link');
    await expectText(page, '正在加载，请稍候...');
    await expectText(page, '当前没有可用的启用令牌，请确认是否有令牌处于启用状态！');
    await page.waitForURL((url) => url.pathname === '/token');
    expect(faults()).toEqual([]);
  });

  it('frames the chat link with the first enabled token and the server address, from the sidebar entry', async () => {
    const { page } = browser;
    const enabled = await createToken('chat-on', true);
    await createToken('chat-later', false); // listed first (newest), but disabled
    await page.goto('/setting');
    await page.getByRole('menuitem', { name: '聊天' }).click();
    await page.waitForURL((url) => url.pathname === '/chat');
    const frame = page.locator('iframe[title="聊天"]');
    await frame.waitFor();
    expect(await frame.getAttribute('src')).toBe(expectedLink(enabled.key));
    await expectText(page.frameLocator('iframe[title="聊天"]').locator('body'), 'Chat app loaded');
    expect(faults()).toEqual([]);
  });

  it('/chat2link sends the browser to the chat link with the same key', async () => {
    const { page } = browser;
    const rows = await user.must<TokenRow[]>('GET', '/api/token/?p=0&size=100');
    const enabled = rows.find((row) => row.status === 1)!;
    await page.goto('/chat2link');
    await page.waitForURL((url) => url.origin === CHAT_LINK);
    expect(page.url()).toBe(new URL(expectedLink(enabled.key)).href);
    await expectText(page, 'Chat app loaded');
    expect(faults()).toEqual([]);
  });

  it('says the administrator has set no chat link on /chat and /chat2link, and the sidebar has no chat entry, when ChatLink is empty', async () => {
    await root.setOption('ChatLink', '');
    const { page } = browser;
    await page.goto('/chat');
    await expectText(page, '管理员未设置聊天链接');
    expect(await page.locator('iframe').count()).toBe(0);
    await page.getByRole('menuitem', { name: '设置' }).waitFor();
    expect(await page.getByRole('menuitem', { name: '聊天' }).count()).toBe(0);
    await page.goto('/chat2link');
    await expectText(page, '管理员未设置聊天链接');
    await page.waitForTimeout(300);
    expect(new URL(page.url()).pathname).toBe('/chat2link');
    expect(faults()).toEqual([]);
  });
});
