import { ApiSession } from './support/api-client';
import { type AdminConsole, openAdminConsole } from './support/admin-console';
import { dismissDefaultPasswordWarning, expectText, loginThroughUi, waitForValue } from './support/console-actions';
import { launchConsoleBrowser, uniqueName, type ConsoleBrowser } from './support/browser';
import { bodyBackground } from './support/page-state';
import {
  changedOptionKeys,
  expectOutcome,
  readOptions,
  saveCard,
  saveOutcome,
  scrollWidth,
  settingsCard,
  watchForFailures,
} from './support/settings-options';
import type { ConsoleTarget } from './support/target';

// Each test drives a real browser; give it more than the root config's 30 s default.
jest.setTimeout(90_000);

const isDark = (rgb: string) => {
  const [r, g, b] = (rgb.match(/\d+/g) ?? []).map(Number);
  return r + g + b < 3 * 100;
};

describe('console other settings, roles, language, theme and phone width', () => {
  let opened: AdminConsole | undefined;
  let target: ConsoleTarget;
  let api: ApiSession;
  let admin: ConsoleBrowser;
  let other: ConsoleBrowser | undefined;
  let failures: string[];

  beforeAll(async () => {
    opened = await openAdminConsole();
    ({ target, api, admin } = opened);
    ({ failures } = watchForFailures(admin.page));
  });

  afterEach(async () => {
    await other?.close();
    other = undefined;
    expect(failures).toEqual([]);
  });

  afterAll(async () => {
    await opened?.close();
  });

  it('saves the notice, system name, logo, home page, about and footer, and the header follows the new name', async () => {
    const { page } = admin;
    const before = await readOptions(api);
    await page.goto('/setting?tab=other');

    const notice = settingsCard(page, '公告');
    await notice.getByLabel('公告', { exact: true }).fill('**Maintenance** tonight');
    await saveCard(notice);
    await expectOutcome(notice, ['已保存：公告']);

    const name = settingsCard(page, '系统名称');
    await name.getByLabel('系统名称', { exact: true }).fill('Tollgate QA');
    await saveCard(name);
    await expectOutcome(name, ['已保存：系统名称']);
    await expectText(page.getByRole('banner'), 'Tollgate QA');

    const logo = settingsCard(page, 'Logo');
    await logo.getByLabel('Logo 图片地址').fill('https://cdn.example.com/logo.png');
    await saveCard(logo);
    await expectOutcome(logo, ['已保存：Logo 图片地址']);

    const home = settingsCard(page, '首页内容');
    await home.getByLabel('首页内容', { exact: true }).fill('# Welcome\n\nRead the docs.');
    await saveCard(home);
    await expectOutcome(home, ['已保存：首页内容']);

    const about = settingsCard(page, '关于');
    await about.getByLabel('关于', { exact: true }).fill('About this gateway');
    await saveCard(about);
    await expectOutcome(about, ['已保存：关于']);

    const footer = settingsCard(page, '页脚');
    await footer.getByLabel('页脚', { exact: true }).fill('<span>QA footer</span>');
    await saveCard(footer);
    await expectOutcome(footer, ['已保存：页脚']);
    await expectText(page, 'QA footer');

    const after = await readOptions(api);
    expect(changedOptionKeys(before, after)).toEqual(['About', 'Footer', 'HomePageContent', 'Logo', 'Notice', 'SystemName']);
    expect(after).toMatchObject({
      Notice: '**Maintenance** tonight',
      SystemName: 'Tollgate QA',
      Logo: 'https://cdn.example.com/logo.png',
      HomePageContent: '# Welcome\n\nRead the docs.',
      About: 'About this gateway',
      Footer: '<span>QA footer</span>',
    });
    await expect(api.must('GET', '/api/notice')).resolves.toBe('**Maintenance** tonight');

    // Emptying a text is a change too. While that save is in flight (held here), the last save's outcome, the same
    // words, is not left on screen as if it were this one's.
    await notice.getByLabel('公告', { exact: true }).fill('');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/option/', async (route) => {
      if (route.request().method() === 'PUT') await held;
      await route.continue();
    });
    await saveCard(notice);
    await saveOutcome(notice).waitFor({ state: 'detached', timeout: 5_000 });
    release();
    await expectOutcome(notice, ['已保存：公告']);
    await page.unroute('**/api/option/');
    expect((await readOptions(api)).Notice).toBe('');
  });

  it('shows an admin only the personal tab, whatever the address asks for, and the server refuses them the options', async () => {
    const username = uniqueName('ad');
    const id = await api.createUser(username, 'password123');
    await api.must('POST', '/api/user/manage', { id, action: 'promote' });
    other = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    const { page } = other;
    const watched = watchForFailures(page);
    await loginThroughUi(page, username, 'password123');
    for (const tab of ['operation', 'system', 'other']) {
      await page.goto(`/setting?tab=${tab}`);
      await page.getByRole('tab', { name: '个人设置' }).waitFor();
      await expect(page.getByRole('tab').count()).resolves.toBe(1);
      await page.getByRole('button', { name: '生成系统访问令牌' }).waitFor();
      await expect(page.getByRole('region', { name: '通用设置' }).count()).resolves.toBe(0);
    }
    const session = await ApiSession.login(target.baseUrl, username, 'password123');
    const answer = await session.call('GET', '/api/option/');
    expect(answer.success).toBe(false);
    const put = await session.call('PUT', '/api/option/', { key: 'SystemName', value: 'hijacked' });
    expect(put.success).toBe(false);
    expect((await readOptions(api)).SystemName).not.toBe('hijacked');
    expect(watched.failures).toEqual([]);
  });

  it('works in English, in dark mode and at 375 px', async () => {
    other = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'en-US', viewport: { width: 375, height: 800 } });
    const { page } = other;
    const watched = watchForFailures(page);
    await loginThroughUi(page, target.root.username, target.root.password, 'en');
    await dismissDefaultPasswordWarning(page);
    await page.getByRole('button', { name: 'Switch to dark mode' }).click();
    await page.getByRole('button', { name: 'Switch to light mode' }).waitFor();
    expect(isDark(await bodyBackground(page))).toBe(true);

    for (const [tab, card] of [
      ['operation', 'Ratio settings'],
      ['system', 'Payment settings (Epay)'],
      ['other', 'Footer'],
    ] as const) {
      await page.goto(`/setting?tab=${tab}`);
      await settingsCard(page, card).waitFor();
      expect(await scrollWidth(page)).toBeLessThanOrEqual(375);
    }

    const before = await readOptions(api);
    await page.goto('/setting?tab=operation');
    const monitoring = settingsCard(page, 'Monitoring settings');
    await monitoring.getByLabel('Quota reminder threshold').fill('-5');
    await saveCard(monitoring);
    await expectText(page, 'Please check the input: Quota reminder threshold');
    await expectText(monitoring, 'Quota reminder threshold must be at least 0');
    await monitoring.getByLabel('Quota reminder threshold').fill('2500');
    await monitoring.getByLabel('Enable a channel automatically on success').click();
    await saveCard(monitoring);
    await expectOutcome(monitoring, ['Saved: Quota reminder threshold, Enable a channel automatically on success']);
    await waitForValue(monitoring.getByLabel('Quota reminder threshold'), '2500');
    const after = await readOptions(api);
    expect(changedOptionKeys(before, after)).toEqual(['AutomaticEnableChannelEnabled', 'QuotaRemindThreshold']);
    expect(after).toMatchObject({ AutomaticEnableChannelEnabled: 'true', QuotaRemindThreshold: '2500' });
    expect(watched.failures).toEqual([]);
  });
});
