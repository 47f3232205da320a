import type { Page } from 'playwright-core';
import { launchConsoleBrowser } from './browser';
import { expectText, loginThroughUi } from './console-actions';
import { bodyBackground, pageScrollWidth, waitForTableRows } from './page-state';

/*
 * The checks the asynchronous task lists (/midjourney and /task) share: their channel filter, and their layout on a
 * phone in both themes.
 */

/** The admin's channel filter: another channel's id shows no row, `channelId` its `rows`. */
export const expectChannelFilter = async (page: Page, channelId: number, rows: number): Promise<void> => {
  await page.getByLabel('渠道 ID').fill(String(channelId + 100));
  await waitForTableRows(page, 0);
  await page.getByLabel('渠道 ID').fill(String(channelId));
  await waitForTableRows(page, rows);
};

/**
 * The list at `path` for `username` at 375 px, in English: its `rows` and failure reason column shown, the page no
 * wider than the screen (the table scrolls inside its box); then in the dark theme, a dark page with the same rows.
 */
export const expectUsableOnPhone = async (options: {
  baseUrl: string;
  username: string;
  password: string;
  path: string;
  rows: number;
}): Promise<void> => {
  const phone = await launchConsoleBrowser({ baseUrl: options.baseUrl, locale: 'en-US', viewport: { width: 375, height: 760 } });
  try {
    await loginThroughUi(phone.page, options.username, options.password, 'en');
    await phone.page.goto(options.path);
    await waitForTableRows(phone.page, options.rows);
    await expectText(phone.page, 'Failure reason');
    expect(await pageScrollWidth(phone.page)).toBeLessThanOrEqual(376);
    await phone.page.getByRole('button', { name: 'Switch to dark mode' }).click();
    await phone.page.getByRole('button', { name: 'Switch to light mode' }).waitFor();
    const [red, green, blue] = (await bodyBackground(phone.page)).match(/\d+/g)!.map(Number);
    expect(red + green + blue).toBeLessThan(200);
    await waitForTableRows(phone.page, options.rows);
  } finally {
    await phone.close();
  }
};
