import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Flags for headless Chromium in a container: no sandbox or GPU, no background network traffic of its own. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface ConsoleBrowser {
  context: BrowserContext;
  page: Page;
  close: () => Promise<void>;
}

export interface LaunchOptions {
  baseUrl: string;
  /** Browser language; the console picks zh or en from it when nothing is stored. */
  locale?: 'zh-CN' | 'en-US';
  viewport?: { width: number; height: number };
}

export const launchConsoleBrowser = async ({ baseUrl, locale = 'zh-CN', viewport }: LaunchOptions): Promise<ConsoleBrowser> => {
  const profile = mkdtempSync(join(tmpdir(), 'tollgate-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, `--lang=${locale}`],
    locale,
    baseURL: baseUrl,
    viewport: viewport ?? { width: 1280, height: 860 },
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(10000);
  return {
    context,
    page,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
};

/** Short unique names: the server caps usernames at 12 characters. */
export const uniqueName = (prefix: string): string =>
  `${prefix}${Date.now().toString(36).slice(-5)}${Math.floor(Math.random() * 36 ** 2).toString(36)}`.slice(0, 12);
