import { ApiSession } from './support/api-client';
import { expectText, loginThroughUi, statValue } from './support/console-actions';
import { launchConsoleBrowser, uniqueName, type ConsoleBrowser } from './support/browser';
import { startConsoleTarget, type ConsoleTarget } from './support/target';

// Each test drives a real browser, and each redemption waits up to 3 s on the server.
jest.setTimeout(60_000);

describe('console wallet page', () => {
  let target: ConsoleTarget;
  let api: ApiSession;
  let user: ConsoleBrowser;
  const username = uniqueName('w');

  const issueCode = async (quota: number): Promise<string> => {
    const [key] = await api.must<string[]>('POST', '/api/redemption/', { name: 'wallet', quota, count: 1 });
    return key;
  };

  beforeAll(async () => {
    target = await startConsoleTarget();
    api = await ApiSession.login(target.baseUrl, target.root.username, target.root.password);
    await api.createUser(username, 'password123');
    user = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    await loginThroughUi(user.page, username, 'password123');
  });

  afterAll(async () => {
    await user?.close();
    await target?.stop();
  });

  it('redeems a code issued through the admin API and refreshes the balance', async () => {
    const { page } = user;
    const key = await issueCode(1_000_000);
    await page.goto('/topup');
    const balance = statValue(page, '当前余额');
    await expectText(balance, '$0.00');

    await page.getByLabel('兑换码').fill(key);
    await page.getByRole('button', { name: '兑换', exact: true }).click();
    await expectText(page, '兑换成功！充值额度：$2.00');
    await expectText(balance, '$2.00');

    // The same code a second time, and a made-up one: the server's own words.
    await page.getByLabel('兑换码').fill(key);
    await page.getByRole('button', { name: '兑换', exact: true }).click();
    await expectText(page, '兑换失败，该兑换码已被使用');
    await page.getByLabel('兑换码').fill('0123456789abcdef0123456789abcdef');
    await page.getByRole('button', { name: '兑换', exact: true }).click();
    await expectText(page, '兑换失败，无效的兑换码');
    await expectText(balance, '$2.00');
  });

  it('asks for a code before calling the server', async () => {
    const { page } = user;
    await page.goto('/topup');
    await page.getByRole('button', { name: '兑换', exact: true }).click();
    await expectText(page, '请输入兑换码！');
  });

  it('offers the configured top-up link', async () => {
    const { page } = user;
    await page.goto('/topup');
    await statValue(page, '当前余额').waitFor();
    expect(await page.getByRole('link', { name: '获取兑换码' }).count()).toBe(0);

    await api.setOption('TopUpLink', 'https://shop.example.com/codes');
    await page.goto('/topup');
    const link = page.getByRole('link', { name: '获取兑换码' });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe('https://shop.example.com/codes');
  });
});
