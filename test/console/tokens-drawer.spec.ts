import { uniqueName, type ConsoleBrowser } from './support/browser';
import { expectText, waitForValue } from './support/console-actions';
import { waitForTableRows } from './support/page-state';
import { rowOpacity } from './support/redemption-list';
import {
  gotoTokens,
  openUserConsole,
  searchTokens,
  tokenDrawer,
  tokenRow,
  tokensNamed,
  type PageFaults,
  type TokenRecord,
  type UserConsole,
} from './support/token-console';

// Each test drives a real browser; give it more than the root config's 30 s default.
jest.setTimeout(60_000);

describe('console tokens: the drawer', () => {
  let opened: UserConsole | undefined;
  let user: ConsoleBrowser;
  let faults: PageFaults;
  // Token names are at most 30 bytes.
  const prefix = uniqueName('k').slice(0, 8);
  const seeded = (index: number) => `${prefix}s${index}`;
  const api = () => opened!.api;

  beforeAll(async () => {
    opened = await openUserConsole(async (root, session) => {
      await root.must('POST', '/api/channel/', {
        type: 1,
        key: 'upstream-key',
        name: `${prefix}ch`,
        base_url: 'http://127.0.0.1:9',
        models: 'gpt-4o-mini,gpt-4o',
        group: 'default',
      });
      for (let index = 0; index < 8; index++) {
        await session.must('POST', '/api/token/', { name: seeded(index), remain_quota: 500000, expired_time: -1 });
      }
    });
    ({ browser: user, faults } = await opened.openBrowser({ locale: 'zh-CN' }));
  });

  afterAll(async () => {
    await opened?.close();
  });

  afterEach(() => {
    expect(faults.errors).toEqual([]);
    expect(faults.serverErrors).toEqual([]);
  });

  it('creates a token in the drawer with every field', async () => {
    const { page } = user;
    const name = `${prefix}new`;
    await gotoTokens(page);
    await waitForTableRows(page, 8);
    await page.getByRole('button', { name: '添加令牌' }).first().click();
    const drawer = tokenDrawer(page);
    await expectText(drawer, '创建新的令牌');
    await expectText(drawer, '注意，令牌的额度仅用于限制令牌本身的最大额度使用量，实际的使用受到账户的剩余额度限制。');
    await waitForValue(drawer.getByLabel('额度', { exact: true }), '500000');
    await drawer.getByLabel('名称', { exact: false }).fill(name);
    const before = Math.floor(Date.now() / 1000);
    await drawer.getByRole('button', { name: '一天', exact: true }).click();
    await drawer.getByRole('button', { name: '10$', exact: true }).click();
    await waitForValue(drawer.getByLabel('额度', { exact: true }), '5000000');
    await expectText(drawer, '等价金额：$10.00');
    await drawer.getByLabel('IP白名单（请勿过度信任此功能）').fill('127.0.0.1\n10.0.0.0/8');
    await drawer.getByLabel('启用模型限制（非必要，不建议启用）').check();
    await drawer.getByLabel('可用模型').click();
    await page.getByRole('option', { name: 'gpt-4o-mini', exact: true }).click();
    await page.keyboard.press('Escape');
    await drawer.getByLabel('令牌分组，默认为用户的分组').click();
    await page.getByRole('option', { name: /^vip/ }).click();
    await drawer.getByRole('button', { name: '提交' }).click();
    await expectText(page, '令牌创建成功，请在列表页面点击复制获取令牌！');

    await searchTokens(page, { name });
    await waitForTableRows(page, 1);
    const row = tokenRow(page, name);
    await expectText(row, '已启用：限制模型');
    await expectText(row, 'vip');
    await expectText(row, '$10.00');
    const [created] = await tokensNamed(api(), name);
    expect(created).toMatchObject<Partial<TokenRecord>>({
      status: 1,
      remain_quota: 5000000,
      unlimited_quota: false,
      model_limits_enabled: true,
      model_limits: 'gpt-4o-mini',
      allow_ips: '127.0.0.1\n10.0.0.0/8',
      group: 'vip',
    });
    expect(created.expired_time).toBeGreaterThanOrEqual(before + 86400 - 1);
    expect(created.expired_time).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 86400 + 1);
  });

  it('creates a batch of unlimited tokens, extra names with a random suffix', async () => {
    const { page } = user;
    const name = `${prefix}bat`;
    await gotoTokens(page);
    await page.getByRole('button', { name: '添加令牌' }).first().click();
    const drawer = tokenDrawer(page);
    await drawer.getByLabel('名称', { exact: false }).fill(name);
    await drawer.getByLabel('无限额度').check();
    expect(await drawer.getByLabel('额度', { exact: true }).count()).toBe(0);
    await drawer.getByRole('button', { name: '10个', exact: true }).click();
    await waitForValue(drawer.getByLabel('新建数量'), '10');
    await drawer.getByLabel('新建数量').fill('3');
    await drawer.getByRole('button', { name: '提交' }).click();
    await expectText(page, '令牌创建成功，请在列表页面点击复制获取令牌！');

    const batch = await api().must<TokenRecord[]>('GET', `/api/token/search?keyword=${name}`);
    expect(batch).toHaveLength(3);
    const names = batch.map((token) => token.name).sort();
    expect(names[0]).toBe(name);
    for (const extra of names.slice(1)) expect(extra).toMatch(new RegExp(`^${name}-[0-9A-Za-z]{6}$`));
    expect(batch.every((token) => token.unlimited_quota && token.expired_time === -1)).toBe(true);
    await searchTokens(page, { name });
    await waitForTableRows(page, 3);
    await expectText(tokenRow(page, name), '无限制');
  });

  it('edits a token in the drawer', async () => {
    const { page } = user;
    const name = seeded(6);
    const renamed = `${prefix}e6`;
    await gotoTokens(page);
    await searchTokens(page, { name });
    await waitForTableRows(page, 1);
    await tokenRow(page, name).getByRole('button', { name: '编辑', exact: true }).click();
    const drawer = tokenDrawer(page);
    await expectText(drawer, '更新令牌信息');
    await waitForValue(drawer.getByLabel('名称', { exact: false }), name);
    expect(await drawer.getByLabel('新建数量').count()).toBe(0);
    await drawer.getByLabel('名称', { exact: false }).fill(renamed);
    await drawer.getByLabel('额度', { exact: true }).fill('1000000');
    await expectText(drawer, '等价金额：$2.00');
    await drawer.getByRole('button', { name: '一小时', exact: true }).click();
    await drawer.getByRole('button', { name: '提交' }).click();
    await expectText(page, '令牌更新成功！');

    await searchTokens(page, { name: renamed });
    await waitForTableRows(page, 1);
    await expectText(tokenRow(page, renamed), '$2.00');
    const [edited] = await tokensNamed(api(), renamed);
    expect(edited.remain_quota).toBe(1000000);
    expect(Math.abs(edited.expired_time - (Math.floor(Date.now() / 1000) + 3600))).toBeLessThan(60);
  });

  it("shows the server's refusal and changes nothing", async () => {
    const { page } = user;
    const tooLong = `${prefix}${'x'.repeat(30)}`;
    await gotoTokens(page);
    await page.getByRole('button', { name: '添加令牌' }).first().click();
    const drawer = tokenDrawer(page);
    await drawer.getByLabel('名称', { exact: false }).fill(tooLong);
    await drawer.getByRole('button', { name: '提交' }).click();
    await expectText(page, '令牌名称过长');
    expect(await tokensNamed(api(), tooLong)).toHaveLength(0);

    await drawer.getByLabel('名称', { exact: false }).fill(`${prefix}ip`);
    await drawer.getByLabel('IP白名单（请勿过度信任此功能）').fill('not-an-address');
    await drawer.getByRole('button', { name: '提交' }).click();
    await expectText(page, /IP 白名单中的 not-an-address 不是合法的 IP 地址或网段/);
    expect(await tokensNamed(api(), `${prefix}ip`)).toHaveLength(0);
    await drawer.getByRole('button', { name: '取消' }).click();
  });

  it('stops a batch at the first refusal and says how many were created', async () => {
    const { page } = user;
    // 26 bytes: the first name fits the 30-byte limit, the suffixed ones (+7 bytes) do not.
    const name = `${prefix}${'b'.repeat(26 - prefix.length)}`;
    await gotoTokens(page);
    await page.getByRole('button', { name: '添加令牌' }).first().click();
    const drawer = tokenDrawer(page);
    await drawer.getByLabel('名称', { exact: false }).fill(name);
    await drawer.getByLabel('新建数量').fill('3');
    await drawer.getByRole('button', { name: '提交' }).click();
    await expectText(page, '已创建 1 / 3 个令牌，随后失败：令牌名称过长');
    await drawer.waitFor({ state: 'hidden' });
    const made = await api().must<TokenRecord[]>('GET', `/api/token/search?keyword=${name}`);
    expect(made.map((token) => token.name)).toEqual([name]);
  });

  it("shows an expired token as expired, refuses to enable it with the server's message, and enables it once it never expires", async () => {
    const { page } = user;
    const name = `${prefix}old`;
    await api().must('POST', '/api/token/', { name, remain_quota: 500000, expired_time: Math.floor(Date.now() / 1000) - 60 });
    const [token] = await tokensNamed(api(), name);
    // The relay marks a token expired when it is used after its expiry.
    const relay = await fetch(`${opened!.target.baseUrl}/v1/models`, { headers: { Authorization: `Bearer sk-${token.key}` } });
    expect(relay.status).toBe(401);
    expect((await tokensNamed(api(), name))[0].status).toBe(3);

    await gotoTokens(page);
    await searchTokens(page, { name });
    await waitForTableRows(page, 1);
    const row = tokenRow(page, name);
    await expectText(row, '已过期');
    expect(await rowOpacity(row)).toBeLessThan(1);
    await row.getByRole('button', { name: '启用', exact: true }).click();
    await expectText(page, '令牌已过期，无法启用，请先修改令牌过期时间，或者设置为永不过期');
    expect((await tokensNamed(api(), name))[0].status).toBe(3);

    await row.getByRole('button', { name: '编辑', exact: true }).click();
    const drawer = tokenDrawer(page);
    await waitForValue(drawer.getByLabel('名称', { exact: false }), name);
    await drawer.getByRole('button', { name: '永不过期', exact: true }).click();
    await waitForValue(drawer.getByLabel('过期时间'), '');
    await drawer.getByRole('button', { name: '提交' }).click();
    await expectText(page, '令牌更新成功！');
    expect((await tokensNamed(api(), name))[0]).toMatchObject({ expired_time: -1, status: 3 });
    await row.getByRole('button', { name: '启用', exact: true }).click();
    await expectText(row, '已启用');
    expect((await tokensNamed(api(), name))[0].status).toBe(1);
  });
});
