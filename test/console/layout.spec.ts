import { ApiSession } from './support/api-client';
import { launchConsoleBrowser, type ConsoleBrowser } from './support/browser';
import { expectText } from './support/console-actions';
import { horizontalOverflow, readGlobal, watchPageFaults } from './support/page-watch';
import { startConsoleTarget, type ConsoleTarget } from './support/target';

jest.setTimeout(60_000);

type StorageGlobals = { localStorage: { setItem(key: string, value: string): void }; __beforeReload?: number };

describe('console top bar and footer', () => {
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

  it('shows the festive lantern on 1 January and 9 to 24 February only, within a 375 px top bar', async () => {
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN', viewport: { width: 375, height: 740 } });
    const { page } = browser;
    const lanternOn = async (day: string): Promise<boolean> => {
      await page.clock.setFixedTime(new Date(`${day}T12:00:00`));
      await page.goto('/');
      await page.getByRole('button', { name: '切换到深色模式' }).waitFor();
      return (await page.getByRole('button', { name: '新年快乐' }).count()) === 1;
    };
    expect(await lanternOn('2027-01-01')).toBe(true);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    expect(await lanternOn('2027-01-02')).toBe(false);
    expect(await lanternOn('2027-02-08')).toBe(false);
    expect(await lanternOn('2027-02-09')).toBe(true);
    expect(await lanternOn('2027-02-24')).toBe(true);
    expect(await lanternOn('2027-02-25')).toBe(false);
  });

  it('sets off fireworks for 3 s from the lantern, then reloads the page 10 s later', async () => {
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'en-US' });
    const { page } = browser;
    const faults = watchPageFaults(page);
    await page.clock.install({ time: new Date('2027-02-12T12:00:00') });
    await page.goto('/');
    await page.getByRole('button', { name: 'Happy New Year' }).click();
    const item = page.getByRole('menuitem', { name: 'Happy New Year!!!' });
    await item.waitFor();
    // From here the page's clock moves only when the test moves it.
    await page.clock.pauseAt(new Date('2027-02-12T12:01:00'));
    await item.click();
    await page.getByTestId('fireworks').waitFor();
    await page.evaluate(() => {
      (globalThis as unknown as StorageGlobals).__beforeReload = 1;
    });

    await page.clock.runFor(2_990);
    expect(await page.getByTestId('fireworks').count()).toBe(1);
    await page.clock.runFor(20);
    await page.getByTestId('fireworks').waitFor({ state: 'detached' });

    await page.clock.runFor(9_980);
    expect(await readGlobal(page, '__beforeReload')).toBe(1);
    await Promise.all([page.waitForEvent('load'), page.clock.runFor(20)]);
    await page.getByRole('button', { name: 'Happy New Year' }).waitFor();
    expect(await readGlobal(page, '__beforeReload')).toBeUndefined();
    expect(faults()).toEqual([]);
  });

  it("shows the credit with the server's version string, or the operator's footer", async () => {
    const { version } = await root.must<{ version: string }>('GET', '/api/status');
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'en-US' });
    const { page } = browser;
    await page.goto('/about');
    await expectText(page.locator('footer'), version);
    await expectText(page.locator('footer'), 'powered by Tollgate');

    await root.setOption('Footer', '<span class="operator-footer">Operated by Example Ltd</span>');
    await page.reload();
    await expectText(page.locator('footer .operator-footer'), 'Operated by Example Ltd');
    expect(await page.locator('footer').innerText()).not.toContain('powered by Tollgate');
    await root.setOption('Footer', '');
  });

  it('reads the stored footer again every 200 ms, five times, while the status is not known', async () => {
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'en-US' });
    const { context, page } = browser;
    // The status never answers, so only the refresh can bring the footer in.
    await context.route('**/api/status', () => undefined);
    await page.goto('/about');
    await page.locator('footer').waitFor();
    await page.evaluate(() => (globalThis as unknown as StorageGlobals).localStorage.setItem('footer_html', '<em>stored footer</em>'));
    await expectText(page.locator('footer em'), 'stored footer');

    // After the fifth read the footer no longer follows the stored copy.
    await page.waitForTimeout(1_200);
    await page.evaluate(() => (globalThis as unknown as StorageGlobals).localStorage.setItem('footer_html', '<em>too late</em>'));
    await page.waitForTimeout(500);
    expect(await page.locator('footer em').innerText()).toBe('stored footer');
  });
});
