import type { Page } from 'playwright-core';

/**
 * Records what must never happen on a console page: an uncaught error in the page, or a 5xx answer to any of its
 * requests. The returned function reads what was seen so far.
 */
export const watchPageFaults = (page: Page): (() => string[]) => {
  const faults: string[] = [];
  page.on('pageerror', (error) => faults.push(`page error: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 500) faults.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  return () => [...faults];
};

type LayoutGlobals = { document: { documentElement: { scrollWidth: number; clientWidth: number } } };

/** How far the page is wider than the viewport (0 when nothing scrolls sideways). */
export const horizontalOverflow = (page: Page): Promise<number> =>
  page.evaluate(() => {
    const root = (globalThis as unknown as LayoutGlobals).document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });

/** Reads a global the page may have set (used to prove an injected script never ran). */
export const readGlobal = (page: Page, name: string): Promise<unknown> =>
  page.evaluate((key) => (globalThis as unknown as Record<string, unknown>)[key], name);
