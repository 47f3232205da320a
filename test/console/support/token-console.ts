import type { Locator, Page } from 'playwright-core';
import { ApiSession } from './api-client';
import { launchConsoleBrowser, uniqueName, type ConsoleBrowser, type LaunchOptions } from './browser';
import { loginThroughUi } from './console-actions';
import { startConsoleTarget, type ConsoleTarget } from './target';

/** A token as `/api/token/*` answers it (the fields the specs check). */
export interface TokenRecord {
  id: number;
  key: string;
  name: string;
  status: number;
  group: string;
  expired_time: number;
  remain_quota: number;
  unlimited_quota: boolean;
  model_limits_enabled: boolean;
  model_limits: string;
  allow_ips: string | null;
}

/** What went wrong in a page that a person would not see as a message: uncaught errors and 5xx answers. */
export interface PageFaults {
  errors: string[];
  serverErrors: string[];
}

export const watchFaults = (page: Page): PageFaults => {
  const faults: PageFaults = { errors: [], serverErrors: [] };
  page.on('pageerror', (error) => faults.errors.push(error.message));
  page.on('response', (response) => {
    if (response.status() >= 500) faults.serverErrors.push(`${response.status()} ${response.url()}`);
  });
  return faults;
};

export type BrowserOptions = Omit<LaunchOptions, 'baseUrl'> & { as?: { username: string; password: string } };

export interface UserConsole {
  target: ConsoleTarget;
  /** Root's API session (options, channels). */
  root: ApiSession;
  /** The common user's API session: the tokens are theirs. */
  api: ApiSession;
  username: string;
  password: string;
  /** Opens a browser and logs the common user (or `as`) in through the login page. */
  openBrowser(options?: BrowserOptions): Promise<{ browser: ConsoleBrowser; faults: PageFaults }>;
  close(): Promise<void>;
}

/** A fresh app with a common user created through root's API; `seed` runs with both sessions before any browser. */
export const openUserConsole = async (
  seed: (root: ApiSession, user: ApiSession) => Promise<void> = async () => {},
): Promise<UserConsole> => {
  const target = await startConsoleTarget();
  const root = await ApiSession.login(target.baseUrl, target.root.username, target.root.password);
  const username = uniqueName('t');
  const password = 'password123';
  await root.createUser(username, password);
  const api = await ApiSession.login(target.baseUrl, username, password);
  await seed(root, api);
  const browsers: ConsoleBrowser[] = [];
  return {
    target,
    root,
    api,
    username,
    password,
    async openBrowser({ as, ...options }: BrowserOptions = {}) {
      const browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, ...options });
      browsers.push(browser);
      const faults = watchFaults(browser.page);
      const login = as ?? { username, password };
      await loginThroughUi(browser.page, login.username, login.password, options.locale === 'en-US' ? 'en' : 'zh');
      return { browser, faults };
    },
    async close() {
      for (const browser of browsers) await browser.close();
      await target.stop();
    },
  };
};

/** The token list with no search, 10 a page (react-admin would otherwise restore the last search and page size). */
export const gotoTokens = async (page: Page): Promise<void> => {
  await page.goto(`/token?filter=${encodeURIComponent('{}')}&page=1&perPage=10`);
};

/** The list row whose name cell is exactly `name`. */
export const tokenRow = (page: Page, name: string): Locator =>
  page.getByRole('row').filter({ has: page.getByRole('cell', { name, exact: true }) });

/** The side drawer's form (create or edit). */
export const tokenDrawer = (page: Page): Locator => page.locator('.MuiDrawer-paper form');

/** Types into the list's name and key search inputs (react-admin applies them after a short debounce). */
export const searchTokens = async (page: Page, search: { name?: string; key?: string }, labels = { name: '搜索关键字', key: '密钥' }) => {
  if (search.name !== undefined) await page.getByLabel(labels.name, { exact: true }).fill(search.name);
  if (search.key !== undefined) await page.getByLabel(labels.key, { exact: true }).fill(search.key);
};

type OpenerGlobals = { open: (url: string) => null; __opened?: string[]; navigator: { clipboard: { readText(): Promise<string> } } };

/** Replaces window.open so the chat links are recorded instead of leaving the page (ama:// and opencat:// apps). */
export const recordWindowOpen = (page: Page): Promise<void> =>
  page.evaluate(() => {
    const globals = globalThis as unknown as OpenerGlobals;
    globals.__opened = [];
    globals.open = (url: string) => {
      globals.__opened?.push(url);
      return null;
    };
  });

export const openedUrls = (page: Page): Promise<string[]> => page.evaluate(() => (globalThis as unknown as OpenerGlobals).__opened ?? []);

export const readClipboard = (page: Page): Promise<string> =>
  page.evaluate(() => (globalThis as unknown as OpenerGlobals).navigator.clipboard.readText());

/** The user's tokens whose name is exactly `name` (search matches substrings). */
export const tokensNamed = (api: ApiSession, name: string): Promise<TokenRecord[]> =>
  api
    .must<TokenRecord[]>('GET', `/api/token/search?keyword=${encodeURIComponent(name)}`)
    .then((tokens) => tokens.filter((token) => token.name === name));

/** Whether the page is wider than the window (a phone would have to scroll sideways). */
export const horizontalOverflow = (page: Page): Promise<boolean> =>
  page.evaluate(() => {
    const globals = globalThis as unknown as { document: { documentElement: { scrollWidth: number } }; innerWidth: number };
    return globals.document.documentElement.scrollWidth > globals.innerWidth;
  });
