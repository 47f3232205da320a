import type { Locator, Page } from 'playwright-core';
import type { ApiSession } from './api-client';

export type OptionMap = Record<string, string>;

/** GET /api/option/ as a key → value map, the way the server holds it. */
export const readOptions = async (api: ApiSession): Promise<OptionMap> => {
  const list = await api.must<Array<{ key: string; value: string }>>('GET', '/api/option/');
  return Object.fromEntries(list.map(({ key, value }) => [key, value]));
};

/** The keys whose values differ between two reads (added or removed keys count too). */
export const changedOptionKeys = (before: OptionMap, after: OptionMap): string[] =>
  [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((key) => before[key] !== after[key]).sort();

/** A settings card, found by its title (each card is a labelled section). */
export const settingsCard = (page: Page, title: string): Locator => page.getByRole('region', { name: title, exact: true });

/** Clicks the card's save button. */
export const saveCard = (card: Locator): Promise<void> => card.getByRole('button', { name: /^(保存|Save)$/ }).click();

/** The card's save outcome (what was saved, and each refused key with the server's message). */
export const saveOutcome = (card: Locator): Locator => card.getByTestId('option-save-outcome');

/** Waits until the outcome's text is exactly the given lines. */
export const expectOutcome = async (card: Locator, lines: string[]): Promise<void> => {
  const outcome = saveOutcome(card);
  const expected = lines.join('\n');
  const deadline = Date.now() + 10_000;
  let seen = '';
  while (Date.now() < deadline) {
    seen = ((await outcome.innerText().catch(() => '')) ?? '').trim();
    if (seen === expected) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the save outcome shows ${JSON.stringify(seen)} instead of ${JSON.stringify(expected)}`);
};

/** Sets a switch (found by its label) on or off. */
export const setSwitch = async (scope: Locator, label: string, on: boolean): Promise<void> => {
  const control = scope.getByLabel(label, { exact: true });
  if ((await control.isChecked()) !== on) await control.click();
  if ((await control.isChecked()) !== on) throw new Error(`the switch ${label} did not turn ${on ? 'on' : 'off'}`);
};

/** Records uncaught page errors and 5xx answers while a test drives the console. */
export const watchForFailures = (page: Page): { failures: string[] } => {
  const failures: string[] = [];
  page.on('pageerror', (error) => failures.push(`page error: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 500) failures.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  return { failures };
};

/** Polls until `read` returns a value `accept` takes (projections are folded asynchronously). */
export const eventually = async <T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!accept(value)) {
    if (Date.now() > deadline) throw new Error(`still ${JSON.stringify(value)} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await read();
  }
  return value;
};

/** The page's width as laid out, to check that nothing overflows a phone screen. */
export const scrollWidth = (page: Page): Promise<number> =>
  page.evaluate(
    () => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth,
  );
