import { expectText } from './support/console-actions';
import { launchConsoleBrowser, uniqueName, type ConsoleBrowser } from './support/browser';
import { startConsoleTarget, type ConsoleTarget } from './support/target';
import type { Page } from 'playwright-core';
import { readLocalStorage } from './support/page-state';

// Each test drives a real browser; give it more than the root config's 30 s default.
jest.setTimeout(60_000);

const fillRegistration = async (page: Page, username: string, password: string, confirmation: string, language: 'zh' | 'en') => {
  const labels =
    language === 'zh'
      ? { username: '用户名', password: '密码', password2: '确认密码', submit: '注册' }
      : { username: 'Username', password: 'Password', password2: 'Confirm password', submit: 'Sign up' };
  await page.getByLabel(labels.username, { exact: true }).fill(username);
  await page.getByLabel(labels.password, { exact: true }).fill(password);
  await page.getByLabel(labels.password2, { exact: true }).fill(confirmation);
  await page.getByRole('button', { name: labels.submit, exact: true }).click();
};

describe('console registration', () => {
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

  it('validates the form with the Chinese messages of new-api', async () => {
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    const { page } = browser;
    await page.goto('/register');
    await expectText(page, '新用户注册');
    await expect(page.getByLabel('密码', { exact: true }).getAttribute('placeholder')).resolves.toBe('输入密码，最短 8 位，最长 20 位');

    await fillRegistration(page, '', 'longenough1', 'longenough1', 'zh');
    await expectText(page, '请输入用户名和密码！');
    await fillRegistration(page, uniqueName('r'), 'short', 'short', 'zh');
    await expectText(page, '密码长度不得小于 8 位！');
    await fillRegistration(page, uniqueName('r'), 'longenough1', 'different1', 'zh');
    await expectText(page, '两次输入的密码不一致');
    expect(new URL(page.url()).pathname).toBe('/register');
  });

  it('validates the form in English', async () => {
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'en-US' });
    const { page } = browser;
    await page.goto('/register');
    await fillRegistration(page, uniqueName('r'), 'short', 'short', 'en');
    await expectText(page, 'Password must be at least 8 characters!');
    await fillRegistration(page, uniqueName('r'), 'longenough1', 'different1', 'en');
    await expectText(page, 'The two passwords do not match');
  });

  it('registers, keeps the invite code, and refuses a taken username', async () => {
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    const { page } = browser;
    const username = uniqueName('reg');
    await page.goto('/register?aff=AbC1');
    await expectText(page, '新用户注册');
    await expect(readLocalStorage(page, 'aff')).resolves.toBe('AbC1');

    const registration = page.waitForRequest((request) => request.url().includes('/api/user/register'));
    await fillRegistration(page, username, 'password123', 'password123', 'zh');
    expect((await registration).postDataJSON()).toMatchObject({ username, password: 'password123', aff_code: 'AbC1' });
    await expectText(page, '注册成功！');
    await page.waitForURL('**/login');

    await page.goto('/register');
    await fillRegistration(page, username, 'password123', 'password123', 'zh');
    await expectText(page, '用户名已存在，或已注销');
  });
});
