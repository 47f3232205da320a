import { dismissDefaultPasswordWarning, expectText, loginThroughUi } from './support/console-actions';
import { launchConsoleBrowser, type ConsoleBrowser } from './support/browser';
import { startConsoleTarget, type ConsoleTarget } from './support/target';
import { readLocalStorage } from './support/page-state';

// Each test drives a real browser; give it more than the root config's 30 s default.
jest.setTimeout(60_000);

describe('console session expiry', () => {
  let target: ConsoleTarget;
  let browser: ConsoleBrowser | undefined;

  beforeAll(async () => {
    target = await startConsoleTarget();
  });

  afterEach(async () => {
    await browser?.close();
    browser = undefined;
  });

  afterAll(async () => {
    await target?.stop();
  });

  it('sends the user to /login?expired=true when the API answers 401', async () => {
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    const { page, context } = browser;
    await loginThroughUi(page, target.root.username, target.root.password);
    await dismissDefaultPasswordWarning(page);

    // Losing the session cookie is what an expired or revoked session looks like to the browser.
    await context.clearCookies();
    await page.goto('/setting?tab=personal');

    await page.waitForURL((url) => url.pathname === '/login' && url.searchParams.get('expired') === 'true');
    await expectText(page, '未登录或登录已过期，请重新登录');
    await expect(readLocalStorage(page, 'user')).resolves.toBeNull();
  });

  it('sends a visitor without a stored login from a protected page to the login screen', async () => {
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'en-US' });
    const { page } = browser;
    await page.goto('/setting');
    await page.waitForURL((url) => url.pathname === '/login');
    await expectText(page, 'Sign in');
  });

  it('shows the not-found page for an unknown path', async () => {
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    const { page } = browser;
    await page.goto('/no/such/screen');
    await expectText(page, '页面不存在');
    await expectText(page, '请检查你的浏览器地址是否正确');
  });
});
