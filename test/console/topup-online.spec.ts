import { EpayFake } from '../fakes/epay/epay-fake';
import { ApiSession } from './support/api-client';
import { expectText, loginThroughUi, statValue } from './support/console-actions';
import { launchConsoleBrowser, uniqueName, type ConsoleBrowser } from './support/browser';
import { startConsoleTarget, type ConsoleTarget } from './support/target';

// Each test drives a real browser (and the payment page opens in a second tab).
jest.setTimeout(60_000);

interface Order {
  trade_no: string;
  amount: number;
  money: number;
  status: string;
  payment_method: string;
}

/**
 * The wallet's online top-up against the real server and the fake Epay gateway (test/fakes/epay): the quote as the
 * amount is typed, the confirmation dialog with amount and money, the signed form posted to the gateway's
 * submit.php in a new tab, the gateway's callback crediting the balance, and the order history; the refusals.
 */
describe('console wallet: online top-up through Epay', () => {
  let target: ConsoleTarget;
  let fake: EpayFake;
  let root: ApiSession;
  let own: ApiSession;
  let user: ConsoleBrowser;
  const username = uniqueName('o');

  const configureGateway = async () => {
    await root.setOption('PayAddress', fake.payAddress);
    await root.setOption('EpayId', fake.pid);
    await root.setOption('EpayKey', fake.key);
  };
  const orders = () => own.must<Order[]>('GET', '/api/user/topup/self?page_size=100');

  beforeAll(async () => {
    target = await startConsoleTarget();
    fake = await EpayFake.start();
    root = await ApiSession.login(target.baseUrl, target.root.username, target.root.password);
    await root.createUser(username, 'password123');
    own = await ApiSession.login(target.baseUrl, username, 'password123');
    // The callback reaches this server: notify_url is ServerAddress + /api/user/epay/notify.
    await root.setOption('ServerAddress', target.baseUrl);
    user = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'zh-CN' });
    await loginThroughUi(user.page, username, 'password123');
  });

  afterAll(async () => {
    await user?.close();
    await fake?.close();
    await target?.stop();
  });

  it('refuses to pay while the administrator has not configured the gateway', async () => {
    const { page } = user;
    await page.goto('/topup');
    await expectText(page, '在线充值');
    await page.getByRole('button', { name: '支付宝' }).click();
    await expectText(page, '管理员未开启在线充值！');
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await orders()).toEqual([]);
  });

  it('quotes the amount, confirms amount and money, posts the signed form to the gateway; the callback credits the balance', async () => {
    await configureGateway();
    const { page, context } = user;
    await page.goto('/topup');
    const balance = statValue(page, '当前余额');
    await expectText(balance, '$0.00');
    await page.getByLabel('充值数量').fill('10');
    await expectText(page.getByTestId('topup-payable'), '73.00 元');

    await page.getByRole('button', { name: '支付宝' }).click();
    const dialog = page.getByRole('dialog', { name: '确定要充值吗' });
    await dialog.waitFor();
    await expectText(dialog.getByTestId('topup-confirm-amount'), '10');
    await expectText(dialog.getByTestId('topup-confirm-money'), '73.00 元');
    await expectText(dialog, '支付宝');

    const [gatewayTab] = await Promise.all([context.waitForEvent('page'), dialog.getByRole('button', { name: '去支付' }).click()]);
    await gatewayTab.waitForLoadState();
    await expectText(gatewayTab, '易支付收银台');
    expect(gatewayTab.url()).toBe(`${fake.baseUrl}/submit.php`);
    expect(fake.refused).toEqual([]);
    const [placed] = await orders();
    expect(placed).toMatchObject({ amount: 10, money: 73, status: 'pending', payment_method: 'zfb' });
    expect(fake.orders.get(placed.trade_no)).toMatchObject({ type: 'alipay', money: '73.00', name: 'TUC10' });
    await gatewayTab.close();

    const history = page.getByTestId('topup-orders');
    await expectText(history, placed.trade_no);
    await expectText(history, '待支付');

    // The gateway confirms the payment with its signed callback, over HTTP, to ServerAddress.
    expect(await fake.notify(placed.trade_no)).toBe('success');
    expect((await orders())[0]).toMatchObject({ trade_no: placed.trade_no, status: 'success' });
    await page.getByRole('button', { name: '刷新记录' }).click();
    await expectText(history, '已支付');
    await page.reload();
    await expectText(statValue(page, '当前余额'), '$10.00');
  });

  it('refuses an amount below the minimum in the page, and shows the server s refusal of a quote', async () => {
    await root.setOption('MinTopUp', '5');
    const { page } = user;
    await page.goto('/topup');
    await expectText(page.getByLabel('充值数量').locator('..').locator('..'), '最低 5');
    await page.getByLabel('充值数量').fill('2');
    await expectText(page, '错误：充值数量不能小于 5');
    await expectText(page.getByTestId('topup-payable'), '0.00 元');
    await page.getByRole('button', { name: '微信' }).click();
    await expectText(page, '充值数量不能小于5');
    expect(await page.getByRole('dialog').count()).toBe(0);

    await page.getByLabel('充值数量').fill('3000000');
    await expectText(page, '错误：充值数量不能大于 2000000');
    expect(await orders()).toHaveLength(1);
    await root.setOption('MinTopUp', '1');
  });

  it('reads in English and fits a 375 px screen', async () => {
    await configureGateway();
    // An order in the history, so its table is on the narrow screen too.
    const placed = (await own.call('POST', '/api/user/pay', { amount: 1, payment_method: 'wx' })) as unknown as { message: string };
    expect(placed.message).toBe('success');
    const before = (await orders()).length;
    const narrow = await launchConsoleBrowser({ baseUrl: target.baseUrl, locale: 'en-US', viewport: { width: 375, height: 812 } });
    try {
      const { page } = narrow;
      await loginThroughUi(page, username, 'password123', 'en');
      await page.goto('/topup');
      await expectText(page, 'Online top-up');
      await page.getByLabel('Top-up amount').fill('2');
      await expectText(page.getByTestId('topup-payable'), '14.60 CNY');
      await page.getByRole('button', { name: 'WeChat Pay' }).click();
      const dialog = page.getByRole('dialog', { name: 'Confirm the top-up?' });
      await expectText(dialog, '14.60 CNY');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expectText(page, 'Top-up orders');
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      // The page does not scroll sideways; the order table scrolls inside its card.
      expect(overflow).toBe(0);
      // Cancelled: no order was placed.
      expect(await orders()).toHaveLength(before);
    } finally {
      await narrow.close();
    }
  });
});
