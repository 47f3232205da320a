import { ApiSession } from './support/api-client';
import {
  dismissDefaultPasswordWarning,
  expectText,
  fillLogin,
  loginThroughUi,
  logoutThroughUi,
  statValue,
} from './support/console-actions';
import { launchConsoleBrowser, uniqueName, type ConsoleBrowser } from './support/browser';
import { runRowAction, searchUsers, userRow, waitForRowCount } from './support/user-list';
import { startConsoleTarget, type ConsoleTarget } from './support/target';
import { waitForTableRows } from './support/page-state';

// Each test drives a real browser; give it more than the root config's 30 s default.
jest.setTimeout(60_000);

/**
 * The acceptance flow, in the zh locale: register, log in, see the quota on the personal tab,
 * an admin promotes the user, and the promoted user then sees the user-management entry.
 */
describe('console accounts (zh)', () => {
  let target: ConsoleTarget;
  let user: ConsoleBrowser | undefined;
  let admin: ConsoleBrowser | undefined;
  const username = uniqueName('acc');
  const password = 'password123';
  const newUserQuota = 1000000; // $2.00 at the default 500000 quota units per dollar

  beforeAll(async () => {
    target = await startConsoleTarget();
    // The QuotaForNewUser option: new users start with this quota.
    const root = await ApiSession.login(target.baseUrl, target.root.username, target.root.password);
    await root.setOption('QuotaForNewUser', String(newUserQuota));
  });

  afterAll(async () => {
    await user?.close();
    await admin?.close();
    await target?.stop();
  });

  it('registers, logs in, shows the quota, and follows a promotion', async () => {
    user = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    const { page } = user;

    await page.goto('/register');
    await expectText(page, '新用户注册');
    await page.getByLabel('用户名', { exact: true }).fill(username);
    await page.getByLabel('密码', { exact: true }).fill(password);
    await page.getByLabel('确认密码', { exact: true }).fill(password);
    await page.getByRole('button', { name: '注册', exact: true }).click();
    await expectText(page, '注册成功！');
    await page.waitForURL((url) => url.pathname === '/login');

    await fillLogin(page, username, password);
    await expectText(page, '登录成功！');
    await page.waitForURL((url) => url.pathname !== '/login');
    await page.getByRole('menuitem', { name: '设置' }).waitFor();
    expect(await page.getByRole('menuitem', { name: '用户管理' }).count()).toBe(0);

    await page.getByRole('menuitem', { name: '设置' }).click();
    await page.getByRole('tab', { name: '个人设置' }).waitFor();
    expect(await page.getByRole('tab', { name: '系统设置' }).count()).toBe(0);
    await expectText(statValue(page, '当前余额'), '$2.00');
    await expectText(statValue(page, '历史消耗'), '$0.00');
    await expectText(statValue(page, '请求次数'), '0');
    await expectText(page, '普通用户');
    await expectText(page, '邀请信息');
    await expect(page.getByLabel('邀请链接').inputValue()).resolves.toMatch(/\/register\?aff=\S+$/);

    admin = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    await loginThroughUi(admin.page, target.root.username, target.root.password);
    await dismissDefaultPasswordWarning(admin.page);
    await admin.page.getByRole('menuitem', { name: '用户管理' }).click();
    await expectText(admin.page, '管理用户');
    await searchUsers(admin.page, username);
    await waitForRowCount(admin.page, 1);
    await runRowAction(admin.page, userRow(admin.page, username), '提升');
    await expectText(admin.page, '操作成功完成！');
    await expectText(userRow(admin.page, username), '管理员');

    // The role is part of the login (session and local user), so it shows after logging in again.
    await logoutThroughUi(page);
    await expectText(page, '注销成功！');
    await loginThroughUi(page, username, password);
    await page.getByRole('menuitem', { name: '用户管理' }).click();
    await expectText(page, '管理用户');
    await waitForTableRows(page, 1, true);
    await page.goto('/setting?tab=personal');
    await expectText(page, '管理员');
  });
});
