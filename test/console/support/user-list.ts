import type { Locator, Page } from 'playwright-core';
import { waitForTableRows } from './page-state';

/** Rows of the user list once it shows exactly `count` of them. */
export const waitForRowCount = (page: Page, count: number): Promise<void> => waitForTableRows(page, count);

/** The list row whose username cell is exactly `username`. */
export const userRow = (page: Page, username: string): Locator =>
  page.getByRole('row').filter({ has: page.getByRole('cell', { name: username, exact: true }) });

export const searchUsers = async (page: Page, keyword: string, label = '搜索'): Promise<void> => {
  await page.getByLabel(label, { exact: true }).fill(keyword);
};

/** Row actions that ask for confirmation first (promote, demote, cancel), by their zh and en labels. */
const CONFIRMED_ACTIONS = ['提升', '降级', '注销', 'Promote', 'Demote', 'Cancel user'];

/** Clicks a row action and accepts its confirmation when it has one. */
export const runRowAction = async (page: Page, row: Locator, action: string, confirm = '确定'): Promise<void> => {
  await row.getByRole('button', { name: action, exact: true }).click();
  if (!CONFIRMED_ACTIONS.includes(action)) return;
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: confirm, exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
};
