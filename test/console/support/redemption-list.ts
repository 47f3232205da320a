import type { Locator, Page } from 'playwright-core';

/** The list row whose name cell is exactly `name` (names are unique per spec run). */
export const redemptionRow = (page: Page, name: string): Locator =>
  page.getByRole('row').filter({ has: page.getByRole('cell', { name, exact: true }) });

/** The row's opacity as the browser renders it: greyed rows are half transparent. */
export const rowOpacity = (row: Locator): Promise<number> =>
  row.evaluate((element) => {
    const globals = globalThis as unknown as { getComputedStyle(target: unknown): { opacity: string } };
    return Number(globals.getComputedStyle(element).opacity);
  });

/** The side drawer's form (create or edit). */
export const redemptionDrawer = (page: Page): Locator => page.locator('.MuiDrawer-paper form');
