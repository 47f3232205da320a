import { dismissDefaultPasswordWarning, expectText, loginThroughUi } from './support/console-actions';
import { launchConsoleBrowser, type ConsoleBrowser } from './support/browser';
import { startConsoleTarget, type ConsoleTarget } from './support/target';
import { bodyBackground, readLocalStorage } from './support/page-state';

// Each test drives a real browser; give it more than the root config's 30 s default.
jest.setTimeout(60_000);

const isDark = (rgb: string) => {
  const [r, g, b] = (rgb.match(/\d+/g) ?? []).map(Number);
  return r + g + b < 3 * 100;
};

describe('console preferences', () => {
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

  it('keeps dark mode across reloads and logins', async () => {
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    const { page } = browser;
    await page.goto('/login');
    await page.getByRole('button', { name: '切换到深色模式' }).waitFor();
    expect(isDark(await bodyBackground(page))).toBe(false);

    await page.getByRole('button', { name: '切换到深色模式' }).click();
    await page.getByRole('button', { name: '切换到浅色模式' }).waitFor();
    await expect(readLocalStorage(page, 'theme')).resolves.toBe('dark');
    expect(isDark(await bodyBackground(page))).toBe(true);

    await page.reload();
    await page.getByRole('button', { name: '切换到浅色模式' }).waitFor();
    expect(isDark(await bodyBackground(page))).toBe(true);

    await loginThroughUi(page, target.root.username, target.root.password);
    await dismissDefaultPasswordWarning(page);
    await page.getByRole('button', { name: '切换到浅色模式' }).waitFor();
    expect(isDark(await bodyBackground(page))).toBe(true);

    await page.getByRole('button', { name: '切换到浅色模式' }).click();
    await page.reload();
    await page.getByRole('button', { name: '切换到深色模式' }).waitFor();
    await expect(readLocalStorage(page, 'theme')).resolves.toBe('light');
  });

  it('switches between Chinese and English and remembers the choice', async () => {
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    const { page } = browser;
    await page.goto('/login');
    await expectText(page, '用户登录');
    await page.getByRole('button', { name: '语言' }).click();
    await page.getByRole('menuitem', { name: 'English' }).click();
    await expectText(page, 'Username or email');
    await expect(readLocalStorage(page, 'i18nextLng')).resolves.toBe('en');
    await page.reload();
    await expectText(page, 'Username or email');
    await page.getByRole('button', { name: 'Language' }).click();
    await page.getByRole('menuitem', { name: '中文' }).click();
    await expectText(page, '用户名/邮箱');
  });
});
