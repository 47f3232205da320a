import type { Locator, Page } from 'playwright-core';

/** Waits until the text is on screen (toasts, headings, validation messages). */
export const expectText = async (page: Page | Locator, text: string | RegExp): Promise<void> => {
  await page.getByText(text).first().waitFor({ state: 'visible' });
};

/** The zh and en labels of the login screen. */
const LOGIN_LABELS = {
  zh: { username: '用户名/邮箱', password: '密码', submit: '登录' },
  en: { username: 'Username or email', password: 'Password', submit: 'Sign in' },
};

export const fillLogin = async (page: Page, username: string, password: string, language: 'zh' | 'en' = 'zh') => {
  const labels = LOGIN_LABELS[language];
  await page.getByLabel(labels.username).fill(username);
  await page.getByLabel(labels.password, { exact: true }).fill(password);
  await page.getByRole('button', { name: labels.submit, exact: true }).click();
};

/** Logs in through the login screen and waits to leave it. */
export const loginThroughUi = async (page: Page, username: string, password: string, language: 'zh' | 'en' = 'zh') => {
  await page.goto('/login');
  await fillLogin(page, username, password, language);
  await page.waitForURL((url) => url.pathname !== '/login');
};

/** Root with the default password gets a warning dialog after login. */
export const dismissDefaultPasswordWarning = async (page: Page) => {
  const dialog = page.getByRole('dialog', { name: /您正在使用默认密码|You are using the default password/ });
  await dialog.waitFor({ state: 'visible' });
  await dialog.getByRole('button').click();
  await dialog.waitFor({ state: 'hidden' });
};

export const logoutThroughUi = async (page: Page) => {
  await page.getByRole('button', { name: /个人资料|Profile/ }).click();
  await page.getByRole('menuitem', { name: /退出|Log out/ }).click();
  await page.waitForURL((url) => url.pathname === '/login');
};

/** The value shown next to a label in the personal tab's description lists. */
export const statValue = (page: Page, label: string): Locator =>
  page.locator('dt', { hasText: label }).locator('xpath=following-sibling::dd[1]');

/** Waits until an input shows the value (a form filled from a loaded record). */
export const waitForValue = async (field: Locator, value: string, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  let seen = '';
  while (Date.now() < deadline) {
    seen = await field.inputValue().catch(() => '');
    if (seen === value) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the field still shows ${JSON.stringify(seen)} instead of ${JSON.stringify(value)}`);
};
