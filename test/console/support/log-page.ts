import type { Locator, Page } from 'playwright-core';
import type { LogRowJson } from './log-seed';

/** Uncaught page errors and 5xx answers seen by a page, to assert none happened. */
export const watchFailures = (page: Page): { errors: string[] } => {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 500) errors.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  return { errors };
};

/** The log table's body rows (each has a type tag; the loading skeleton's rows have none). */
export const logRows = (page: Page): Locator => page.locator('tbody tr').filter({ has: page.getByTestId('log-type') });

/** The row whose model tag and token tag are exactly these. */
export const logRow = (page: Page, model: string, token: string): Locator =>
  logRows(page)
    .filter({ has: page.getByTestId('log-model').filter({ hasText: new RegExp(`^${model}$`) }) })
    .filter({ has: page.getByTestId('log-token').filter({ hasText: new RegExp(`^${token}$`) }) });

export const columnHeaders = async (page: Page): Promise<string[]> =>
  (await page.locator('thead th').allInnerTexts()).map((text) => text.trim()).filter(Boolean);

/** `$` and the quota in dollars, as the console shows quota with display in currency on (500000 a dollar). */
export const dollars = (quota: number, digits = 2): string => `$${(quota / 500000).toFixed(digits)}`;

/** The stat chip's amount: two decimals, six when a positive amount would read $0.00. */
export const statDollars = (quota: number): string => (quota > 0 && dollars(quota) === '$0.00' ? dollars(quota, 6) : dollars(quota));

const plain = (value: number): string => String(Number(value.toFixed(6)));

/** The zh lines of the price breakdown of a ratio-billed consumption row, from the row's `other` as the server holds it. */
export const expectedBreakdownZh = (row: LogRowJson): string[] => {
  const other = JSON.parse(row.other) as { model_ratio: number; completion_ratio: number; group_ratio: number };
  const promptPrice = other.model_ratio * 2;
  const completionPrice = other.model_ratio * 2 * other.completion_ratio;
  const group = other.group_ratio;
  const total = ((row.prompt_tokens / 1e6) * promptPrice + (row.completion_tokens / 1e6) * completionPrice) * group;
  return [
    `模型倍率 ${plain(other.model_ratio)}，补全倍率 ${plain(other.completion_ratio)}，分组倍率 ${plain(group)}`,
    `提示：$${plain(promptPrice)} * ${plain(group)} = $${plain(promptPrice * group)} / 1M tokens`,
    `补全：$${plain(completionPrice)} * ${plain(group)} = $${plain(completionPrice * group)} / 1M tokens`,
    `提示 ${row.prompt_tokens} tokens / 1M tokens * $${plain(promptPrice)} + 补全 ${row.completion_tokens} tokens / 1M tokens * $${plain(completionPrice)} * 分组 ${plain(group)} = $${total.toFixed(6)}`,
  ];
};

/** A local `YYYY-MM-DDTHH:mm:ss` for a datetime input (the browser and this process share the machine's time zone). */
export const localDateTime = (seconds: number): string => {
  const date = new Date(seconds * 1000);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
};

/** Waits until the table shows exactly `count` rows (an empty table shows none). */
export const waitForLogRows = async (page: Page, count: number): Promise<void> => {
  const deadline = Date.now() + 10_000;
  let seen = -1;
  while (Date.now() < deadline) {
    seen = await logRows(page).count();
    if (seen === count) return;
    await page.waitForTimeout(100);
  }
  throw new Error(`the log table shows ${seen} rows instead of ${count}`);
};
