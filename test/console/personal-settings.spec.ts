import { ApiSession } from './support/api-client';
import { expectText, fillLogin, loginThroughUi, statValue } from './support/console-actions';
import { launchConsoleBrowser, uniqueName, type ConsoleBrowser } from './support/browser';
import { startConsoleTarget, type ConsoleTarget } from './support/target';

// Each test drives a real browser; give it more than the root config's 30 s default.
jest.setTimeout(60_000);

describe('console personal settings', () => {
  let target: ConsoleTarget;
  let browser: ConsoleBrowser | undefined;
  let root: ApiSession;
  const password = 'password123';

  const registerUser = async (affCode = ''): Promise<string> => {
    const username = uniqueName('p');
    const response = await fetch(`${target.baseUrl}/api/user/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username, password, password2: password, aff_code: affCode }),
    });
    const body = (await response.json()) as { success: boolean; message: string };
    if (!body.success) throw new Error(`registration failed: ${body.message}`);
    return username;
  };

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

  it('generates a system access token and changes the password', async () => {
    const username = await registerUser();
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    const { page } = browser;
    await loginThroughUi(page, username, password);
    await page.goto('/setting?tab=personal');

    await page.getByRole('button', { name: '生成系统访问令牌' }).click();
    await expectText(page, '令牌已重置并已复制到剪贴板');
    await expect(page.getByLabel('系统访问令牌').inputValue()).resolves.toMatch(/^\S{16,}$/);

    await page.getByRole('button', { name: '修改密码' }).click();
    await page.getByLabel('新密码', { exact: true }).fill('newpassword1');
    await page.getByLabel('确认新密码').fill('newpassword2');
    await page.getByRole('dialog').getByRole('button', { name: '确定' }).click();
    await expectText(page, '两次输入的密码不一致！');
    await page.getByLabel('确认新密码').fill('newpassword1');
    await page.getByRole('dialog').getByRole('button', { name: '确定' }).click();
    await expectText(page, '密码修改成功！');
    await expect(ApiSession.login(target.baseUrl, username, 'newpassword1')).resolves.toBeInstanceOf(ApiSession);
  });

  it('transfers invite earnings of at least one unit into the balance', async () => {
    await root.setOption('QuotaForInviter', '1000000');
    const inviter = await registerUser();
    const inviterApi = await ApiSession.login(target.baseUrl, inviter, password);
    const affCode = await inviterApi.must<string>('GET', '/api/user/aff');
    await registerUser(affCode);

    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    const { page } = browser;
    await loginThroughUi(page, inviter, password);
    await page.goto('/setting?tab=personal');
    await expectText(statValue(page, '待使用收益'), '$2.00');
    await expectText(statValue(page, '邀请人数'), '1');
    const balanceBefore = await statValue(page, '当前余额').innerText();

    await page.getByRole('button', { name: '划转', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(/划转额度/).fill('1000');
    await dialog.getByRole('button', { name: '划转', exact: true }).click();
    await expectText(page, '划转金额最低为$1.00');

    await dialog.getByLabel(/划转额度/).fill('500000');
    await dialog.getByRole('button', { name: '划转', exact: true }).click();
    await expectText(page, '划转成功');
    await expectText(statValue(page, '待使用收益'), '$1.00');
    const balanceAfter = await statValue(page, '当前余额').innerText();
    expect(Number(balanceAfter.replace('$', ''))).toBeCloseTo(Number(balanceBefore.replace('$', '')) + 1, 2);
  });

  it('validates the email binding dialog', async () => {
    const username = await registerUser();
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    const { page } = browser;
    await loginThroughUi(page, username, password);
    await page.goto('/setting?tab=personal');
    await page.getByRole('button', { name: '绑定邮箱' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: '绑定', exact: true }).click();
    await expectText(page, '请输入邮箱！');
    await dialog.getByLabel('邮箱').fill(`${username}@example.com`);
    await dialog.getByRole('button', { name: '绑定', exact: true }).click();
    await expectText(page, '请输入邮箱验证码！');
  });

  it('deletes the own account only after the username is typed back', async () => {
    const username = await registerUser();
    browser = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    const { page } = browser;
    await loginThroughUi(page, username, password);
    await page.goto('/setting?tab=personal');
    await page.getByRole('button', { name: '删除个人账户' }).click();
    const dialog = page.getByRole('dialog');
    await expectText(dialog, '您正在删除自己的帐户，将清空所有数据且不可恢复');
    await dialog.getByLabel(`输入你的账户名 ${username} 以确认删除`).fill('someone-else');
    await dialog.getByRole('button', { name: '删除个人账户' }).click();
    await expectText(page, '请输入你的账户名以确认删除！');

    await dialog.getByLabel(`输入你的账户名 ${username} 以确认删除`).fill(username);
    await dialog.getByRole('button', { name: '删除个人账户' }).click();
    await expectText(page, '账户已删除！');
    await page.waitForURL((url) => url.pathname === '/login');
    await fillLogin(page, username, password);
    await expectText(page, '用户名或密码错误，或用户已被封禁');
  });
});
