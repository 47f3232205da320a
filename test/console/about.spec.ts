import { ApiSession } from './support/api-client';
import { launchConsoleBrowser, type ConsoleBrowser } from './support/browser';
import { expectText } from './support/console-actions';
import { horizontalOverflow, readGlobal, watchPageFaults } from './support/page-watch';
import { startConsoleTarget, type ConsoleTarget } from './support/target';

jest.setTimeout(60_000);

type Page = ConsoleBrowser['page'];

const openAbout = async (page: Page) => {
  await Promise.all([page.waitForResponse((response) => response.url().endsWith('/api/about')), page.goto('/about')]);
};

/** /about is public: every test runs logged out. */
describe('console about page', () => {
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

  it('shows the default text while About is empty, without logging in, in zh and en', async () => {
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    const { page } = browser;
    const faults = watchPageFaults(page);
    await openAbout(page);
    expect(new URL(page.url()).pathname).toBe('/about');
    await page.getByRole('heading', { level: 1, name: '关于' }).waitFor();
    await expectText(page, '可在设置页面（其他设置）设置关于内容，支持 Markdown');

    await page.getByRole('button', { name: '语言' }).click();
    await page.getByRole('menuitem', { name: 'English' }).click();
    await page.getByRole('heading', { level: 1, name: 'About' }).waitFor();
    await expectText(page, 'The about content can be set in Settings (Other tab); Markdown is supported.');
    expect(faults()).toEqual([]);
  });

  it('renders the About Markdown with its HTML inert', async () => {
    await root.setOption(
      'About',
      '## Who we are\n\nRun by *Example Ltd*.\n\n<script>window.__aboutScript = 1</script>\n\n<iframe src="https://evil.example.com"></iframe>',
    );
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'en-US' });
    const { page } = browser;
    const faults = watchPageFaults(page);
    await openAbout(page);
    const content = page.locator('.markdown-content');
    await content.getByRole('heading', { level: 2, name: 'Who we are' }).waitFor();
    expect(await content.locator('em').textContent()).toBe('Example Ltd');
    await expectText(content, '<script>window.__aboutScript = 1</script>');
    expect(await content.locator('script, iframe').count()).toBe(0);
    expect(await page.locator('iframe').count()).toBe(0);
    expect(await readGlobal(page, '__aboutScript')).toBeUndefined();
    expect(faults()).toEqual([]);
  });

  it('frames an https About address, and fits 375 px in dark mode', async () => {
    await root.setOption('About', '  https://about.example.com/team  ');
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'en-US', viewport: { width: 375, height: 740 } });
    const { context, page } = browser;
    await context.route('https://about.example.com/**', (route) =>
      route.fulfill({ contentType: 'text/html', body: '<p>Our team page</p>' }),
    );
    const faults = watchPageFaults(page);
    await openAbout(page);
    expect(await page.locator('iframe[title="Operator page"]').getAttribute('src')).toBe('https://about.example.com/team');
    await expectText(page.frameLocator('iframe[title="Operator page"]').locator('body'), 'Our team page');
    await page.getByRole('button', { name: 'Switch to dark mode' }).click();
    await page.getByRole('button', { name: 'Switch to light mode' }).waitFor();
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    expect(faults()).toEqual([]);
  });

  it('shows the server message when the about content cannot be loaded', async () => {
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    const { context, page } = browser;
    await context.route('**/api/about', (route) =>
      route.fulfill({ contentType: 'application/json', body: JSON.stringify({ success: false, message: '关于内容暂不可用' }) }),
    );
    await page.goto('/about');
    await expectText(page, '关于内容暂不可用');
    await expectText(page, '加载关于内容失败...');
  });
});
