import { readFileSync } from 'node:fs';
import { ApiSession } from './support/api-client';
import { type AdminConsole, openAdminConsole } from './support/admin-console';
import { expectText, loginThroughUi, waitForValue } from './support/console-actions';
import { launchConsoleBrowser, uniqueName, type ConsoleBrowser } from './support/browser';
import { waitForTableRows } from './support/page-state';
import { redemptionDrawer, redemptionRow, rowOpacity } from './support/redemption-list';
import { searchUsers } from './support/user-list';
import type { ConsoleTarget } from './support/target';

// Each test drives a real browser; give it more than the root config's 30 s default.
jest.setTimeout(60_000);

const KEY_PATTERN = /^[0-9a-f]{32}$/;

interface Code {
  id: number;
  name: string;
  key: string;
  status: number;
  quota: number;
}

describe('console redemption codes', () => {
  let target: ConsoleTarget;
  let admin: ConsoleBrowser;
  let api: ApiSession;
  // Code names are at most 20 bytes.
  const prefix = uniqueName('r').slice(0, 8);
  const batchName = `${prefix}b`;
  const seeded = (index: number) => `${prefix}s${index}`;

  const codesNamed = (name: string) =>
    api
      .must<Code[]>('GET', `/api/redemption/search?keyword=${encodeURIComponent(name)}`)
      .then((codes) => codes.filter((code) => code.name === name));

  let opened: AdminConsole | undefined;

  beforeAll(async () => {
    opened = await openAdminConsole(async (session) => {
      for (let index = 0; index < 11; index++)
        await session.must('POST', '/api/redemption/', { name: seeded(index), quota: 500000, count: 1 });
    });
    ({ target, api, admin } = opened);
  });

  afterAll(async () => {
    await opened?.close();
  });

  it('creates codes in the drawer and offers them as a text file named after the codes', async () => {
    const { page } = admin;
    await page.goto('/redemption');
    await expectText(page, '管理兑换码');
    await page.getByRole('button', { name: '添加兑换码' }).click();
    const drawer = redemptionDrawer(page);
    await expectText(drawer, '创建新的兑换码');
    await waitForValue(drawer.getByLabel('额度'), '100000');
    await drawer.getByLabel('名称', { exact: false }).fill(batchName);
    await drawer.getByRole('button', { name: '10$', exact: true }).click();
    await waitForValue(drawer.getByLabel('额度'), '5000000');
    await expectText(drawer, '等价金额：$10.00');
    await drawer.getByLabel('生成数量').fill('3');
    await drawer.getByRole('button', { name: '提交' }).click();

    await expectText(page, '兑换码创建成功！');
    const dialog = page.getByRole('dialog', { name: '兑换码创建成功' });
    await dialog.waitFor();
    const shownKeys = (await dialog.getByTestId('new-redemption-keys').innerText()).trim().split('\n');
    expect(shownKeys).toHaveLength(3);
    for (const key of shownKeys) expect(key).toMatch(KEY_PATTERN);

    const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: '下载' }).click()]);
    expect(download.suggestedFilename()).toBe(`${batchName}.txt`);
    const fileKeys = readFileSync(await download.path(), 'utf8')
      .trim()
      .split('\n');
    expect(fileKeys).toEqual(shownKeys);

    const created = await codesNamed(batchName);
    expect(created.map((code) => code.key).sort()).toEqual([...shownKeys].sort());
    expect(created.every((code) => code.quota === 5000000 && code.status === 1)).toBe(true);
  });

  it('lists ten codes a page, newest first, and searches by name and id', async () => {
    const { page } = admin;
    await page.goto('/redemption');
    await waitForTableRows(page, 10);
    // The three codes just created are the newest.
    await expect(page.getByRole('row').nth(1).getByRole('cell', { name: batchName, exact: true }).count()).resolves.toBe(1);
    await page.getByRole('button', { name: '前往下一页' }).click();
    await page.waitForURL((url) => url.searchParams.get('page') === '2');
    await waitForTableRows(page, 4);

    await page.goto('/redemption');
    await searchUsers(page, batchName);
    await waitForTableRows(page, 3);
    await expectText(redemptionRow(page, batchName).first(), '$10.00');
    await expectText(redemptionRow(page, batchName).first(), '未使用');
    await expectText(redemptionRow(page, batchName).first(), '无');

    const [first] = await codesNamed(seeded(0));
    await searchUsers(page, String(first.id));
    await waitForTableRows(page, 1);
    await redemptionRow(page, seeded(0)).waitFor();
  });

  it('disables a code (greyed) and enables it again', async () => {
    const { page } = admin;
    const name = seeded(1);
    await page.goto('/redemption');
    await searchUsers(page, name);
    await waitForTableRows(page, 1);
    const row = redemptionRow(page, name);
    expect(await rowOpacity(row)).toBe(1);

    await row.getByRole('button', { name: '禁用', exact: true }).click();
    await expectText(page, '操作成功完成！');
    await expectText(row, '已禁用');
    expect(await rowOpacity(row)).toBeLessThan(1);
    expect(await row.getByRole('button', { name: '编辑', exact: true }).isDisabled()).toBe(true);
    expect((await codesNamed(name))[0].status).toBe(2);

    await row.getByRole('button', { name: '启用', exact: true }).click();
    await expectText(row, '未使用');
    await row.getByRole('button', { name: '禁用', exact: true }).waitFor();
    expect(await rowOpacity(row)).toBe(1);
    expect((await codesNamed(name))[0].status).toBe(1);
  });

  it('edits a code in the drawer', async () => {
    const { page } = admin;
    const name = seeded(2);
    const renamed = `${prefix}e2`;
    await page.goto('/redemption');
    await searchUsers(page, name);
    await waitForTableRows(page, 1);
    await redemptionRow(page, name).getByRole('button', { name: '编辑', exact: true }).click();
    const drawer = redemptionDrawer(page);
    await expectText(drawer, '更新兑换码信息');
    await waitForValue(drawer.getByLabel('名称', { exact: false }), name);
    expect(await drawer.getByLabel('生成数量').count()).toBe(0);
    await drawer.getByLabel('名称', { exact: false }).fill(renamed);
    await drawer.getByLabel('额度').fill('1000000');
    await expectText(drawer, '等价金额：$2.00');
    await drawer.getByRole('button', { name: '提交' }).click();
    await expectText(page, '兑换码更新成功！');

    await searchUsers(page, renamed);
    await waitForTableRows(page, 1);
    await expectText(redemptionRow(page, renamed), '$2.00');
    const [edited] = await codesNamed(renamed);
    expect(edited.quota).toBe(1000000);
  });

  it('deletes a code after confirmation', async () => {
    const { page } = admin;
    const name = seeded(3);
    await page.goto('/redemption');
    await searchUsers(page, name);
    await waitForTableRows(page, 1);
    await redemptionRow(page, name).getByRole('button', { name: '删除', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await expectText(dialog, '确定是否要删除此兑换码？');
    await dialog.getByRole('button', { name: '确定', exact: true }).click();
    await expectText(page, '操作成功完成！');
    await waitForTableRows(page, 0);
    expect(await codesNamed(name)).toHaveLength(0);
  });

  it('shows a redeemed code as used, greyed, with its enable and edit actions inactive', async () => {
    const { page } = admin;
    const name = seeded(4);
    const [code] = await codesNamed(name);
    const username = uniqueName('u');
    const userId = await api.createUser(username, 'password123');
    const user = await ApiSession.login(target.baseUrl, username, 'password123');
    expect(await user.must<number>('POST', '/api/user/topup', { key: code.key })).toBe(500000);

    await page.goto('/redemption');
    await searchUsers(page, name);
    await waitForTableRows(page, 1);
    const row = redemptionRow(page, name);
    await expectText(row, '已使用');
    await row.getByRole('cell', { name: String(userId), exact: true }).waitFor();
    expect(await rowOpacity(row)).toBeLessThan(1);
    expect(await row.getByRole('button', { name: '启用', exact: true }).isDisabled()).toBe(true);
    expect(await row.getByRole('button', { name: '编辑', exact: true }).isDisabled()).toBe(true);
    expect(await row.getByRole('button', { name: '禁用', exact: true }).count()).toBe(0);
  });

  it('copies the selected codes, and asks for a selection first', async () => {
    const { page } = admin;
    await page.goto('/redemption');
    await searchUsers(page, batchName);
    await waitForTableRows(page, 3);
    // The list toolbar's button; the bulk toolbar's twin stays collapsed (zero height) until rows are selected.
    await page.getByRole('button', { name: '复制所选兑换码到剪贴板' }).first().click();
    await expectText(page, '请至少选择一个兑换码！');

    const row = redemptionRow(page, batchName).first();
    await row.getByRole('checkbox').check();
    await page.getByRole('button', { name: '复制所选兑换码到剪贴板' }).click();
    await expectText(page, '已复制到剪贴板！');
    const copied = await page.evaluate(() =>
      (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText(),
    );
    const keys = (await codesNamed(batchName)).map((code) => code.key);
    expect(copied).toMatch(new RegExp(`^${batchName} {4}[0-9a-f]{32}\\n$`));
    expect(keys).toContain(copied.trim().split(/\s+/)[1]);
  });

  it('keeps the screen and its menu entry from common users', async () => {
    const username = uniqueName('c');
    await api.createUser(username, 'password123');
    const common = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    try {
      const { page } = common;
      await loginThroughUi(page, username, 'password123');
      await page.getByRole('menuitem', { name: '设置' }).waitFor();
      expect(await page.getByRole('menuitem', { name: '兑换码' }).count()).toBe(0);
      await page.goto('/redemption');
      await expectText(page, '你没有访问此页面的权限');
    } finally {
      await common.close();
    }
  });
});
