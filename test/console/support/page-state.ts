import type { Page } from 'playwright-core';

/*
 * Browser-side reads for the specs. The root tsconfig has no DOM library (it also compiles the server),
 * so code evaluated in the page reaches the browser globals through a typed `globalThis`.
 */
type BrowserGlobals = {
  localStorage: { getItem(key: string): string | null };
  document: { body: unknown; documentElement: { scrollWidth: number }; querySelectorAll(selector: string): { length: number } };
  getComputedStyle(element: unknown): { backgroundColor: string };
};

export const readLocalStorage = (page: Page, key: string): Promise<string | null> =>
  page.evaluate((storageKey) => (globalThis as unknown as BrowserGlobals).localStorage.getItem(storageKey), key);

export const bodyBackground = (page: Page): Promise<string> =>
  page.evaluate(() => {
    const globals = globalThis as unknown as BrowserGlobals;
    return globals.getComputedStyle(globals.document.body).backgroundColor;
  });

/** Waits until the list table has exactly `count` rows (or at least `count` with `atLeast`). */
export const waitForTableRows = async (page: Page, count: number, atLeast = false): Promise<void> => {
  await page.waitForFunction(
    ({ expected, minimum }) => {
      const rows = (globalThis as unknown as BrowserGlobals).document.querySelectorAll('tbody tr').length;
      return minimum ? rows >= expected : rows === expected;
    },
    { expected: count, minimum: atLeast },
  );
};

/** The page's full width in CSS pixels, overflow included: above the viewport's width, the page scrolls sideways. */
export const pageScrollWidth = (page: Page): Promise<number> =>
  page.evaluate(() => (globalThis as unknown as BrowserGlobals).document.documentElement.scrollWidth);
