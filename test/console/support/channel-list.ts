import type { Locator, Page } from 'playwright-core';
import type { ApiSession } from './api-client';

/** A channel as the API answers it (the key is never answered). */
export interface ChannelRow {
  id: number;
  name: string;
  type: number;
  status: number;
  priority: number;
  weight: number;
  models: string;
  group: string;
  base_url: string;
  model_mapping: string;
  other: string;
  response_time: number;
  test_time: number;
  balance: number;
  other_info: string;
}

/** The channels named exactly `name` (search matches by substring). */
export const channelsNamed = async (api: ApiSession, name: string): Promise<ChannelRow[]> =>
  (await api.must<ChannelRow[]>('GET', `/api/channel/search?keyword=${encodeURIComponent(name)}`)).filter((row) => row.name === name);

/** Creates a channel through the API (an OpenAI channel unless told otherwise) and answers it. */
export const createChannel = async (api: ApiSession, name: string, fields: Record<string, unknown> = {}): Promise<ChannelRow> => {
  await api.must('POST', '/api/channel/', {
    type: 1,
    name,
    key: 'sk-upstream-good',
    models: 'gpt-4o-mini,gpt-4o',
    group: 'default',
    auto_ban: 1,
    ...fields,
  });
  const [row] = await channelsNamed(api, name);
  if (!row) throw new Error(`channel ${name} was not created`);
  return row;
};

/** The list row whose name cell is exactly `name`. */
export const channelRow = (page: Page, name: string): Locator =>
  page.getByRole('row').filter({ has: page.getByRole('cell', { name, exact: true }) });

/** Waits until `check` holds for what the server answers (the list and the worker settle asynchronously). */
export const eventually = async <T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 15_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!check(value)) {
    if (Date.now() > deadline) throw new Error(`still not as expected: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    value = await read();
  }
  return value;
};

/** Records uncaught page errors and 5xx answers, so a spec can assert there were none. */
export const watchForFailures = (page: Page): { failures: string[] } => {
  const failures: string[] = [];
  page.on('pageerror', (error) => failures.push(`page error: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 500) failures.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  return { failures };
};
