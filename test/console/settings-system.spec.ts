import type { ApiSession } from './support/api-client';
import { type AdminConsole, openAdminConsole } from './support/admin-console';
import { expectText, waitForValue } from './support/console-actions';
import type { ConsoleBrowser } from './support/browser';
import {
  changedOptionKeys,
  expectOutcome,
  readOptions,
  saveCard,
  setSwitch,
  settingsCard,
  watchForFailures,
  type OptionMap,
} from './support/settings-options';

// Each test drives a real browser; give it more than the root config's 30 s default.
jest.setTimeout(90_000);

const GITHUB_REFUSED = '无法启用 GitHub OAuth，请先填入 GitHub Client Id 以及 GitHub Client Secret！';

describe('console system settings (super admin)', () => {
  let opened: AdminConsole | undefined;
  let api: ApiSession;
  let admin: ConsoleBrowser;
  let failures: string[];
  let start: OptionMap;

  beforeAll(async () => {
    opened = await openAdminConsole();
    ({ api, admin } = opened);
    ({ failures } = watchForFailures(admin.page));
    start = await readOptions(api);
  });

  afterAll(async () => {
    await opened?.close();
  });

  afterEach(() => {
    expect(failures).toEqual([]);
  });

  it('needs the server address before payment, trims it, and checks the top-up group ratio JSON before saving', async () => {
    const { page } = admin;
    await page.goto('/setting?tab=system');
    const payment = settingsCard(page, '支付设置（易支付）');
    await payment.getByLabel('充值价格（x 元/美金）').fill('8');
    await saveCard(payment);
    await expectText(page, '请先填写服务器地址');
    await expect(readOptions(api)).resolves.toEqual(start);

    const general = settingsCard(page, '通用设置');
    await general.getByLabel('服务器地址').fill('https://gw.example.com/');
    await saveCard(general);
    await expectOutcome(general, ['已保存：服务器地址']);
    await waitForValue(general.getByLabel('服务器地址'), 'https://gw.example.com');

    await payment.getByLabel('充值分组倍率').fill('{bad');
    await payment.getByLabel('易支付商户密钥').fill('epay-secret');
    await saveCard(payment);
    await expectText(page, '请检查输入：充值分组倍率');
    await expectText(payment, '充值分组倍率不是合法的 JSON 字符串');
    expect(changedOptionKeys(start, await readOptions(api))).toEqual(['ServerAddress']);

    await payment.getByLabel('充值分组倍率').fill('{"default": 1, "vip": 0.9}');
    await saveCard(payment);
    await expectOutcome(payment, ['已保存：易支付商户密钥、充值价格（x 元/美金）、充值分组倍率']);
    // A secret is never shown back: the field empties once it is saved.
    await waitForValue(payment.getByLabel('易支付商户密钥'), '');
    await expectText(payment, 'https://gw.example.com');

    const options = await readOptions(api);
    expect(changedOptionKeys(start, options)).toEqual(['Price', 'ServerAddress', 'TopupGroupRatio']);
    expect(options).toMatchObject({ ServerAddress: 'https://gw.example.com', Price: '8', TopupGroupRatio: '{"default": 1, "vip": 0.9}' });
    expect(options).not.toHaveProperty('EpayKey');
    start = options;
  });

  it("shows the server's message for a refused value and saves the other changed keys", async () => {
    const { page } = admin;
    await page.goto('/setting?tab=system');
    const worker = settingsCard(page, '代理设置');
    await worker.getByLabel('Worker 地址').fill('ftp://files.example.com');
    await worker.getByLabel('Worker 密钥').fill('worker-secret');
    await saveCard(worker);
    await expectOutcome(worker, ['已保存：Worker 密钥', '未保存 Worker 地址：WorkerUrl 必须是以 http:// 或 https:// 开头的地址']);
    await expectText(page, '部分保存失败，请重试');
    // The refused entry stays for a fix; the saved secret is cleared.
    await waitForValue(worker.getByLabel('Worker 地址'), 'ftp://files.example.com');
    await waitForValue(worker.getByLabel('Worker 密钥'), '');

    const login = settingsCard(page, '配置登录注册');
    await setSwitch(login, '允许通过 GitHub 账户登录和注册', true);
    await setSwitch(login, '允许新用户注册（关闭时，新用户将无法以任何方式注册）', false);
    await saveCard(login);
    await expectOutcome(login, [
      '已保存：允许新用户注册（关闭时，新用户将无法以任何方式注册）',
      `未保存 允许通过 GitHub 账户登录和注册：${GITHUB_REFUSED}`,
    ]);
    let options = await readOptions(api);
    expect(changedOptionKeys(start, options)).toEqual(['RegisterEnabled']);
    expect(options).toMatchObject({ RegisterEnabled: 'false', GitHubOAuthEnabled: 'false', WorkerUrl: '' });

    // With the client id saved, the same switch is accepted.
    const github = settingsCard(page, '配置 GitHub OAuth App');
    await expectText(github, 'https://gw.example.com/oauth/github');
    await github.getByLabel('GitHub Client ID').fill('gh-client-id');
    await github.getByLabel('GitHub Client Secret').fill('gh-client-secret');
    await saveCard(github);
    await expectOutcome(github, ['已保存：GitHub Client ID、GitHub Client Secret']);
    await saveCard(login);
    await expectOutcome(login, ['已保存：允许通过 GitHub 账户登录和注册']);
    options = await readOptions(api);
    expect(changedOptionKeys(start, options)).toEqual(['GitHubClientId', 'GitHubOAuthEnabled', 'RegisterEnabled']);
    expect(options).toMatchObject({ GitHubClientId: 'gh-client-id', GitHubOAuthEnabled: 'true' });
    const status = await api.must<{ github_oauth: boolean; github_client_id: string }>('GET', '/api/status');
    expect(status).toMatchObject({ github_oauth: true, github_client_id: 'gh-client-id' });
    start = options;
  });

  it('asks before turning password login off: nothing is saved when cancelled, the switch is when confirmed', async () => {
    const { page } = admin;
    await page.goto('/setting?tab=system');
    const login = settingsCard(page, '配置登录注册');
    await setSwitch(login, '允许通过密码进行登录', false);
    await saveCard(login);
    const dialog = page.getByRole('dialog', { name: '请确认' });
    await expectText(dialog, '关闭密码登录后，所有没有绑定其他登录方式的用户（包括管理员）都将无法通过密码登录。确定继续吗？');
    await dialog.getByRole('button', { name: '取消' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect(readOptions(api)).resolves.toEqual(start);

    // Confirmed, it is saved; switching it back on needs no confirmation.
    await saveCard(login);
    await dialog.getByRole('button', { name: '仍然保存' }).click();
    await expectOutcome(login, ['已保存：允许通过密码进行登录']);
    expect(changedOptionKeys(start, await readOptions(api))).toEqual(['PasswordLoginEnabled']);
    await setSwitch(login, '允许通过密码进行登录', true);
    await saveCard(login);
    await expectOutcome(login, ['已保存：允许通过密码进行登录']);
    await expect(readOptions(api)).resolves.toEqual(start);
  });

  it('edits the email domain whitelist as chips and saves SMTP, WeChat, Telegram and Turnstile settings', async () => {
    const { page } = admin;
    await page.goto('/setting?tab=system');
    const domains = settingsCard(page, '配置邮箱域名白名单');
    await domains.getByRole('button', { name: '移除 qq.com', exact: true }).click();
    await domains.getByLabel('添加域名，例如 example.com').fill('example.org');
    await domains.getByLabel('添加域名，例如 example.com').press('Enter');
    await setSwitch(domains, '启用邮箱域名白名单', true);
    await saveCard(domains);
    await expectOutcome(domains, ['已保存：允许的邮箱域名、启用邮箱域名白名单']);

    const smtp = settingsCard(page, '配置 SMTP');
    await smtp.getByLabel('SMTP 服务器地址').fill('smtp.example.com');
    await smtp.getByLabel('SMTP 端口').fill('465');
    await smtp.getByLabel('SMTP 访问凭证').fill('smtp-secret');
    await setSwitch(smtp, '启用 SMTP SSL', true);
    await saveCard(smtp);
    await expectOutcome(smtp, ['已保存：SMTP 服务器地址、SMTP 端口、SMTP 访问凭证、启用 SMTP SSL']);

    const wechat = settingsCard(page, '配置 WeChat Server');
    await wechat.getByLabel('WeChat Server 服务器地址').fill('https://wx.example.com//');
    await saveCard(wechat);
    await expectOutcome(wechat, ['已保存：WeChat Server 服务器地址']);

    const telegram = settingsCard(page, '配置 Telegram 登录');
    await telegram.getByLabel('Telegram Bot 名称').fill('tollgate_bot');
    await saveCard(telegram);
    await expectOutcome(telegram, ['已保存：Telegram Bot 名称']);

    const turnstile = settingsCard(page, '配置 Turnstile');
    await turnstile.getByLabel('Turnstile Site Key').fill('site-key-1');
    await saveCard(turnstile);
    await expectOutcome(turnstile, ['已保存：Turnstile Site Key']);
    // Blank secrets are not sent: saving again changes nothing.
    await saveCard(turnstile);
    await expectText(page, '你似乎并没有修改什么');

    const options = await readOptions(api);
    expect(changedOptionKeys(start, options)).toEqual(
      [
        'EmailDomainRestrictionEnabled',
        'EmailDomainWhitelist',
        'SMTPPort',
        'SMTPSSLEnabled',
        'SMTPServer',
        'TelegramBotName',
        'WeChatServerAddress',
      ].sort(),
    );
    expect(options.EmailDomainWhitelist).toBe(
      start.EmailDomainWhitelist.split(',')
        .filter((domain) => domain !== 'qq.com')
        .concat('example.org')
        .join(','),
    );
    expect(options).toMatchObject({
      EmailDomainRestrictionEnabled: 'true',
      SMTPPort: '465',
      WeChatServerAddress: 'https://wx.example.com',
    });
    // The site key is hidden from the list, but the public status now carries it.
    const status = await api.must<{ turnstile_site_key: string }>('GET', '/api/status');
    expect(status.turnstile_site_key).toBe('site-key-1');
  });
});
