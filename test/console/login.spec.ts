import { dismissDefaultPasswordWarning, expectText, fillLogin } from './support/console-actions';
import { launchConsoleBrowser, type ConsoleBrowser } from './support/browser';
import { startConsoleTarget, type ConsoleTarget } from './support/target';
import { readLocalStorage } from './support/page-state';

// Each test drives a real browser; give it more than the root config's 30 s default.
jest.setTimeout(60_000);

describe('console login screen', () => {
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

  it('asks for username and password, in Chinese', async () => {
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    const { page } = browser;
    await page.goto('/login');
    await expectText(page, '用户登录');
    await page.getByRole('button', { name: '登录', exact: true }).click();
    await expectText(page, '请输入用户名和密码！');
    expect(page.url()).toContain('/login');
  });

  it('asks for username and password, in English', async () => {
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'en-US' });
    const { page } = browser;
    await page.goto('/login');
    await page.getByLabel('Username or email').fill('root');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expectText(page, 'Please enter username and password!');
  });

  it("shows the server's refusal of a wrong password", async () => {
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl });
    const { page } = browser;
    await page.goto('/login');
    await fillLogin(page, target.root.username, 'wrong-password');
    await expectText(page, '用户名或密码错误，或用户已被封禁');
    expect(new URL(page.url()).pathname).toBe('/login');
  });

  it('explains an expired login and links to register and reset', async () => {
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl });
    const { page } = browser;
    await page.goto('/login?expired=true');
    await expectText(page, '未登录或登录已过期，请重新登录');
    await page.getByRole('link', { name: '点击注册' }).click();
    await page.waitForURL('**/register');
    await expectText(page, '新用户注册');
    await page.goto('/login');
    await page.getByRole('link', { name: '点击重置' }).click();
    await page.waitForURL('**/reset');
    await expectText(page, '密码重置');
  });

  it('warns root about the default password after a successful login', async () => {
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl });
    const { page } = browser;
    await page.goto('/login');
    await fillLogin(page, target.root.username, target.root.password);
    await expectText(page, '登录成功！');
    await page.waitForURL('**/token');
    await expectText(page, '请立刻修改默认密码！');
    await dismissDefaultPasswordWarning(page);
    const stored = JSON.parse((await readLocalStorage(page, 'user')) ?? 'null');
    expect(stored).toMatchObject({ username: 'root', role: 100 });
  });
});
