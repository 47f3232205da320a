import { ApiSession } from './support/api-client';
import { launchConsoleBrowser, type ConsoleBrowser } from './support/browser';
import { expectText } from './support/console-actions';
import { readLocalStorage } from './support/page-state';
import { horizontalOverflow, readGlobal, watchPageFaults } from './support/page-watch';
import { startConsoleTarget, type ConsoleTarget } from './support/target';

jest.setTimeout(60_000);

type Page = ConsoleBrowser['page'];

/** Markdown with raw HTML an attacker would try: none of it may run or become elements. */
const HOSTILE_MARKDOWN = [
  '# Welcome to the gateway',
  '',
  'Prices are **halved** this week. [Docs](https://docs.example.com) and [bad](javascript:alert(1))',
  '',
  '<script>window.__homeScript = 1</script>',
  '',
  '<img src="x" onerror="window.__homeImage = 1">',
].join('\n');

/** Opens / and waits for the home content request to be answered. */
const openHome = async (page: Page) => {
  await Promise.all([page.waitForResponse((response) => response.url().endsWith('/api/home_page_content')), page.goto('/')]);
};

describe('console home page', () => {
  let target: ConsoleTarget;
  let root: ApiSession;
  let browser: ConsoleBrowser | undefined;

  beforeAll(async () => {
    target = await startConsoleTarget();
    root = await ApiSession.login(target.baseUrl, target.root.username, target.root.password);
  });
  afterEach(async () => {
    await browser?.close();
    browser = undefined;
  });
  afterAll(async () => {
    await target?.stop();
  });

  it('shows the default home with the system information while HomePageContent is empty', async () => {
    const status = await root.must<{ version: string }>('GET', '/api/status');
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    const { page } = browser;
    const faults = watchPageFaults(page);
    await openHome(page);
    await page.getByRole('heading', { level: 1, name: /欢迎使用/ }).waitFor();
    await page.getByRole('heading', { name: '系统信息' }).waitFor();
    await page.getByRole('heading', { name: '系统配置' }).waitFor();
    await expectText(page.locator('dd', { hasText: status.version }), status.version);
    // The footer's credit carries the same version string.
    await expectText(page.locator('footer'), status.version);
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(faults()).toEqual([]);
  });

  it('renders Markdown content, and the HTML in it neither runs nor becomes elements', async () => {
    await root.setOption('HomePageContent', HOSTILE_MARKDOWN);
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    const { page } = browser;
    const faults = watchPageFaults(page);
    await openHome(page);
    const content = page.locator('.markdown-content');
    await content.getByRole('heading', { level: 1, name: 'Welcome to the gateway' }).waitFor();
    expect(await content.locator('strong').textContent()).toBe('halved');
    expect(await content.getByRole('link', { name: 'Docs' }).getAttribute('href')).toBe('https://docs.example.com');
    expect(await content.getByRole('link', { name: 'Docs' }).getAttribute('target')).toBe('_blank');
    // The raw HTML is shown as text, never as elements.
    await expectText(content, '<script>window.__homeScript = 1</script>');
    expect(await content.locator('script, img, iframe').count()).toBe(0);
    const badHref = await content.getByRole('link', { name: 'bad' }).getAttribute('href');
    expect(badHref ?? '').not.toMatch(/javascript/i);
    expect(await readGlobal(page, '__homeScript')).toBeUndefined();
    expect(await readGlobal(page, '__homeImage')).toBeUndefined();
    // Kept for the next visit, as new-api does, so a reload does not flash the default home.
    await expect(readLocalStorage(page, 'home_page_content')).resolves.toBe(HOSTILE_MARKDOWN);
    expect(faults()).toEqual([]);
  });

  it('frames an https address instead of rendering it', async () => {
    await root.setOption('HomePageContent', 'https://landing.example.com/welcome');
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'en-US' });
    const { context, page } = browser;
    await context.route('https://landing.example.com/**', (route) =>
      route.fulfill({ contentType: 'text/html', body: '<h1>Framed landing page</h1>' }),
    );
    const faults = watchPageFaults(page);
    await openHome(page);
    const frame = page.locator('iframe[title="Operator page"]');
    expect(await frame.getAttribute('src')).toBe('https://landing.example.com/welcome');
    await expectText(page.frameLocator('iframe[title="Operator page"]').locator('body'), 'Framed landing page');
    expect(await page.locator('.markdown-content').count()).toBe(0);
    expect(faults()).toEqual([]);
  });

  it('opens the notice once per change, rendered from Markdown', async () => {
    await root.setOption('HomePageContent', '');
    await root.setOption('Notice', 'Maintenance **tonight** at 22:00 <b>raw</b>');
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    const { page } = browser;
    const faults = watchPageFaults(page);
    await page.goto('/');
    const dialog = page.getByRole('dialog', { name: '系统公告' });
    await dialog.waitFor();
    expect(await dialog.locator('strong').textContent()).toBe('tonight');
    expect(await dialog.locator('b').count()).toBe(0);
    await expectText(dialog, '<b>raw</b>');
    await dialog.getByRole('button', { name: '关闭' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect(readLocalStorage(page, 'notice')).resolves.toBe('Maintenance **tonight** at 22:00 <b>raw</b>');

    // The same notice: not again.
    await Promise.all([page.waitForResponse((response) => response.url().endsWith('/api/notice')), page.reload()]);
    await page.getByRole('heading', { level: 1, name: /欢迎使用/ }).waitFor();
    await page.waitForTimeout(300);
    expect(await page.getByRole('dialog').count()).toBe(0);

    // A changed notice opens again, once.
    await root.setOption('Notice', 'New prices from Monday');
    await page.reload();
    await dialog.waitFor();
    await expectText(dialog, 'New prices from Monday');
    await dialog.getByRole('button', { name: '关闭' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await Promise.all([page.waitForResponse((response) => response.url().endsWith('/api/notice')), page.reload()]);
    await page.getByRole('heading', { level: 1, name: /欢迎使用/ }).waitFor();
    await page.waitForTimeout(300);
    expect(await page.getByRole('dialog').count()).toBe(0);

    // An emptied notice shows nothing.
    await root.setOption('Notice', '');
    await Promise.all([page.waitForResponse((response) => response.url().endsWith('/api/notice')), page.reload()]);
    await page.waitForTimeout(300);
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(faults()).toEqual([]);
  });

  it('fits a 375 px screen in English and in dark mode', async () => {
    await root.setOption('Notice', '');
    await root.setOption(
      'HomePageContent',
      '## Pricing\n\n| model | price |\n|---|---|\n| gpt-4o-mini | 0.15 |\n\n' + 'long-word-'.repeat(30),
    );
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'en-US', viewport: { width: 375, height: 740 } });
    const { page } = browser;
    const faults = watchPageFaults(page);
    await openHome(page);
    await page.locator('.markdown-content').getByRole('heading', { name: 'Pricing' }).waitFor();
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await page.getByRole('button', { name: 'Switch to dark mode' }).click();
    await page.getByRole('button', { name: 'Switch to light mode' }).waitFor();
    await page.locator('.markdown-content').getByRole('heading', { name: 'Pricing' }).waitFor();
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);

    await root.setOption('HomePageContent', '');
    await openHome(page);
    await page.getByRole('heading', { name: 'System information' }).waitFor();
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    expect(faults()).toEqual([]);
  });
});
