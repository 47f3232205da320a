import { type AdminConsole, openAdminConsole } from './support/admin-console';
import { expectText, loginThroughUi, waitForValue } from './support/console-actions';
import { launchConsoleBrowser, uniqueName, type ConsoleBrowser } from './support/browser';
import { runRowAction, searchUsers, userRow, waitForRowCount } from './support/user-list';
import type { ConsoleTarget } from './support/target';
import { waitForTableRows } from './support/page-state';

// Each test drives a real browser; give it more than the root config's 30 s default.
jest.setTimeout(60_000);

describe('console user management', () => {
  let target: ConsoleTarget;
  let admin: ConsoleBrowser;
  const prefix = uniqueName('m').slice(0, 8);
  const name = (index: number) => `${prefix}${index}`;

  let opened: AdminConsole | undefined;

  beforeAll(async () => {
    opened = await openAdminConsole(async (session) => {
      for (let index = 0; index < 12; index++) await session.createUser(name(index), 'password123');
    });
    ({ target, admin } = opened);
  });

  afterAll(async () => {
    await opened?.close();
  });

  it('lists ten users a page and loads further pages one at a time', async () => {
    const { page } = admin;
    await page.goto('/user');
    await expectText(page, '管理用户');
    await waitForRowCount(page, 10);
    await page.getByRole('button', { name: '前往下一页' }).click();
    await page.waitForURL((url) => url.searchParams.get('page') === '2');
    await waitForTableRows(page, 3, true);

    await page.getByRole('combobox', { name: /每页行数/ }).click();
    await page.getByRole('option', { name: '20' }).click();
    await waitForTableRows(page, 13, true);
  });

  it('searches by keyword and by group', async () => {
    const { page } = admin;
    await page.goto('/user');
    await searchUsers(page, prefix);
    await waitForRowCount(page, 12);
    await searchUsers(page, name(1));
    await waitForRowCount(page, 3);
    await page.getByRole('combobox', { name: '分组' }).click();
    await page.getByRole('option', { name: 'default', exact: true }).click();
    await waitForRowCount(page, 3);
  });

  it('promotes, demotes, disables and enables a user', async () => {
    const { page } = admin;
    const username = name(0);
    await page.goto('/user');
    await searchUsers(page, username);
    await waitForRowCount(page, 1);
    const row = userRow(page, username);

    await runRowAction(page, row, '提升');
    await expectText(page, '操作成功完成！');
    await expectText(row, '管理员');

    await runRowAction(page, row, '降级');
    await expectText(row, '普通用户');

    await runRowAction(page, row, '禁用');
    await expectText(row, '已封禁');
    await row.getByRole('button', { name: '启用', exact: true }).waitFor();

    await runRowAction(page, row, '启用');
    await expectText(row, '已激活');
    await row.getByRole('button', { name: '禁用', exact: true }).waitFor();
  });

  it('cancels a user, after which the row offers no actions', async () => {
    const { page } = admin;
    const username = name(2);
    await page.goto('/user');
    await searchUsers(page, username);
    await waitForRowCount(page, 1);
    const row = userRow(page, username);

    await row.getByRole('button', { name: '注销', exact: true }).click();
    await expectText(page, '确定是否要注销此用户？');
    await page.getByRole('dialog').getByRole('button', { name: '确定', exact: true }).click();
    await expectText(row, '已注销');
    await expectText(row, '无可用操作');
    expect(await row.getByRole('button').count()).toBe(0);
  });

  it('adds a user and edits its quota', async () => {
    const { page } = admin;
    const username = uniqueName('a');
    await page.goto('/user');
    await page.getByRole('link', { name: '添加用户' }).click();
    await page.waitForURL('**/user/add');
    await page.getByLabel('用户名', { exact: false }).first().fill(username);
    await page.getByLabel('密码', { exact: false }).first().fill('password123');
    await page.getByRole('button', { name: '保存' }).click();
    await expectText(page, '用户账户创建成功！');
    await page.waitForURL((url) => url.pathname === '/user');

    await searchUsers(page, username);
    await waitForRowCount(page, 1);
    await userRow(page, username).getByRole('link', { name: '编辑' }).click();
    await page.waitForURL(/\/user\/edit\/\d+$/);
    // Type only once the record has loaded, or the form's reset to the record would swallow the edit.
    await waitForValue(page.getByLabel('用户名', { exact: false }).first(), username);
    const quota = page.getByLabel('剩余额度');
    await quota.fill('1000000');
    await expectText(page, '等价金额：$2.00');
    const save = page.getByRole('button', { name: '保存' });
    // The button enables once the form knows it is dirty; a slow machine may take a moment.
    await page.waitForFunction(
      (button) => button !== null && !(button as unknown as { disabled: boolean }).disabled,
      await save.elementHandle(),
    );
    await save.click();
    await expectText(page, '用户信息更新成功！');
    await page.waitForURL((url) => url.pathname === '/user');
    await searchUsers(page, username);
    await waitForRowCount(page, 1);
    await expectText(userRow(page, username), '$2.00');
  });

  it('keeps the screen and its menu entry from common users', async () => {
    const common = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    try {
      const { page } = common;
      await loginThroughUi(page, name(4), 'password123');
      await page.getByRole('menuitem', { name: '设置' }).waitFor();
      expect(await page.getByRole('menuitem', { name: '用户管理' }).count()).toBe(0);
      await page.goto('/user');
      await expectText(page, '你没有访问此页面的权限');
    } finally {
      await common.close();
    }
  });
});
