import { DataSource } from 'typeorm';
import { createTestApp, type TestApp } from '../support/app';
import { seedUser } from '../support/users';
import { GitHubFake } from '../fakes/github-fake';
import { findUser, login, setOptions, users, usersSnapshot } from './auth-support';

/** GET /api/oauth/state and GET /api/oauth/github: login, sign-up and binding. */
describe('auth: GitHub OAuth', () => {
  let target: TestApp;
  let github: GitHubFake;

  beforeAll(async () => {
    github = await GitHubFake.start();
    target = await createTestApp({
      env: { GITHUB_OAUTH_URL: github.baseUrl, GITHUB_API_URL: github.baseUrl, OAUTH_TIMEOUT_MS: '500' },
    });
  });
  beforeEach(async () => {
    github.delayMs = 0;
    await setOptions(target, {
      GitHubOAuthEnabled: 'true',
      GitHubClientId: github.clientId,
      GitHubClientSecret: github.clientSecret,
      RegisterEnabled: 'true',
    });
  });
  afterAll(async () => {
    await target.close();
    await github.close();
  });

  /** A browser that asked for a state, as the console does before redirecting to GitHub. */
  async function browserWithState() {
    const browser = target.http();
    const state = (await browser.get('/api/oauth/state')).body.data as string;
    return { browser, state, callback: (code: string) => browser.get('/api/oauth/github').query({ code, state }) };
  }

  describe('state', () => {
    it('returns 12 random alphanumerics and keeps them in the session', async () => {
      const browser = target.http();
      const first = await browser.get('/api/oauth/state');
      expect(first.body).toEqual({ success: true, message: '', data: expect.stringMatching(/^[A-Za-z0-9]{12}$/) });
      expect([first.headers['set-cookie']].flat().join(';')).toMatch(/session=/);
      const second = await browser.get('/api/oauth/state');
      expect(second.body.data).not.toBe(first.body.data);
    });

    it.each([
      ['no state at all', (_state: string) => ({ code: 'x', state: '' }), true],
      ['a different state', (state: string) => ({ code: 'x', state: `${state}x` }), true],
      ['a state but no session', (state: string) => ({ code: 'x', state }), false],
    ])('answers HTTP 403 for %s', async (_, query, sameBrowser) => {
      const { browser, state } = await browserWithState();
      const agent = sameBrowser ? browser : target.http();
      const response = await agent.get('/api/oauth/github').query(query(state));
      expect([response.status, response.body]).toEqual([403, { success: false, message: 'state is empty or not same' }]);
    });

    it('checks the state before anything else, even with GitHub login disabled', async () => {
      await setOptions(target, { GitHubOAuthEnabled: 'false' });
      const response = await target.http().get('/api/oauth/github').query({ code: 'x', state: 'abc' });
      expect(response.status).toBe(403);
    });
  });

  describe('login and sign-up', () => {
    it('logs a bound account in, exchanging the code exactly as GitHub documents', async () => {
      const known = await seedUser(target.app.get(DataSource), { username: 'octoknown' });
      await users(target).update({ id: known.id }, { githubId: 'octo-known' });
      const { browser, callback } = await browserWithState();
      const requestsBefore = github.requests.length;
      const response = await callback(github.issueCode({ login: 'octo-known', name: 'Octo Known' }));
      expect(response.body).toMatchObject({
        success: true,
        message: '',
        data: { id: known.id, username: 'octoknown', quota: 0, access_token: null },
      });

      const [exchange, profile] = github.requests.slice(requestsBefore);
      expect(exchange.method).toBe('POST');
      expect(exchange.url).toBe('/login/oauth/access_token');
      expect(exchange.headers.accept).toBe('application/json');
      expect(JSON.parse(exchange.body)).toEqual({
        client_id: github.clientId,
        client_secret: github.clientSecret,
        code: expect.any(String),
      });
      expect(profile.url).toBe('/user');
      expect(profile.headers.authorization).toMatch(/^Bearer gho_/);

      // The session is a real login.
      const me = await browser.get('/api/oauth/wechat/bind').query({ code: 'x' }).set('New-Api-User', String(known.id));
      expect(me.body).toEqual({ success: false, message: '管理员未开启通过微信登录以及注册' });
    });

    it('signs a new GitHub user up as github_<max id + 1> with the GitHub name and public email', async () => {
      const [{ max }] = await target.app.get(DataSource).query('SELECT MAX(id) AS max FROM users');
      const { callback } = await browserWithState();
      const response = await callback(github.issueCode({ login: 'new-octo', name: 'New Octo', email: 'new.octo@example.com' }));
      expect(response.body).toMatchObject({
        success: true,
        message: '',
        data: { username: `github_${Number(max) + 1}`, display_name: 'New Octo', role: 1, status: 1 },
      });
      const created = await findUser(target, { githubId: 'new-octo' });
      expect(created).toMatchObject({
        username: `github_${Number(max) + 1}`,
        email: 'new.octo@example.com',
        inviterId: 0,
        group: 'default',
      });

      const again = await (await browserWithState()).callback(github.issueCode({ login: 'new-octo', name: 'Renamed' }));
      expect(again.body.data.id).toBe(created!.id);
    });

    it('names a nameless GitHub user "GitHub User", cuts a long name to 20 characters, drops an unusable email', async () => {
      const nameless = await (await browserWithState()).callback(github.issueCode({ login: 'nameless', name: null, email: null }));
      expect(nameless.body.data.display_name).toBe('GitHub User');
      const long = await (
        await browserWithState()
      ).callback(github.issueCode({ login: 'longname', name: 'A'.repeat(30), email: `${'x'.repeat(60)}@example.com` }));
      expect(long.body.data.display_name).toBe('A'.repeat(20));
      expect((await findUser(target, { githubId: 'longname' }))?.email).toBe('');
    });

    it('skips a github_<n> name someone already chose by hand', async () => {
      const [{ max }] = await target.app.get(DataSource).query('SELECT MAX(id) AS max FROM users');
      await seedUser(target.app.get(DataSource), { username: `github_${Number(max) + 2}` });
      const response = await (await browserWithState()).callback(github.issueCode({ login: 'collider' }));
      expect(response.body.success).toBe(true);
      expect(response.body.data.username).toBe(`github_${Number(max) + 3}`);
    });

    it('refuses to sign up when registration is closed, creating nothing', async () => {
      await setOptions(target, { RegisterEnabled: 'false' });
      const before = await usersSnapshot(target);
      const response = await (await browserWithState()).callback(github.issueCode({ login: 'latecomer' }));
      expect(response.body).toEqual({ success: false, message: '管理员关闭了新用户注册' });
      expect(await usersSnapshot(target)).toBe(before);
    });

    it('refuses a cancelled account ("用户已注销") and a banned one ("用户已被封禁")', async () => {
      const dataSource = target.app.get(DataSource);
      const cancelled = await seedUser(dataSource, { username: 'octogone' });
      await users(target).update({ id: cancelled.id }, { githubId: 'octo-gone' });
      await users(target).softDelete({ id: cancelled.id });
      const banned = await seedUser(dataSource, { username: 'octoban', status: 2 });
      await users(target).update({ id: banned.id }, { githubId: 'octo-banned' });

      expect((await (await browserWithState()).callback(github.issueCode({ login: 'octo-gone' }))).body).toEqual({
        success: false,
        message: '用户已注销',
      });
      const refused = await (await browserWithState()).callback(github.issueCode({ login: 'octo-banned' }));
      expect(refused.body).toEqual({ success: false, message: '用户已被封禁' });
      expect(refused.headers['set-cookie']).toBeUndefined();
    });

    it('answers the new-api messages for a disabled feature, a bad code, wrong app credentials and a slow GitHub', async () => {
      await setOptions(target, { GitHubOAuthEnabled: 'false' });
      expect((await (await browserWithState()).callback('anything')).body).toEqual({
        success: false,
        message: '管理员未开启通过 GitHub 登录以及注册',
      });
      await setOptions(target, { GitHubOAuthEnabled: 'true' });

      const invalid = { success: false, message: '返回值非法，用户字段为空，请稍后重试！' };
      expect((await (await browserWithState()).callback('not-a-real-code')).body).toEqual(invalid);
      await setOptions(target, { GitHubClientSecret: 'wrong-secret' });
      expect((await (await browserWithState()).callback(github.issueCode({ login: 'someone' }))).body).toEqual(invalid);
      await setOptions(target, { GitHubClientSecret: github.clientSecret });

      expect((await (await browserWithState()).callback('')).body).toEqual({ success: false, message: '无效的参数' });

      github.delayMs = 1500;
      const started = Date.now();
      const slow = await (await browserWithState()).callback(github.issueCode({ login: 'slowpoke' }));
      expect(slow.body).toEqual({ success: false, message: '无法连接至 GitHub 服务器，请稍后重试！' });
      expect(Date.now() - started).toBeLessThan(1400);
    });
  });

  describe('binding (a logged-in session)', () => {
    it('binds the GitHub account to the logged-in user and answers message "bind"', async () => {
      const jane = await seedUser(target.app.get(DataSource), { username: 'jane', password: 'jane-password' });
      const browser = target.http();
      await login(browser, 'jane', 'jane-password');
      const state = (await browser.get('/api/oauth/state')).body.data;
      const response = await browser.get('/api/oauth/github').query({ code: github.issueCode({ login: 'jane-gh' }), state });
      expect(response.body).toEqual({ success: true, message: 'bind' });
      expect((await findUser(target, { id: jane.id }))?.githubId).toBe('jane-gh');
    });

    it('refuses a GitHub account already bound, even to a cancelled user', async () => {
      const dataSource = target.app.get(DataSource);
      const kim = await seedUser(dataSource, { username: 'kim', password: 'kim-password' });
      const holder = await seedUser(dataSource, { username: 'holder' });
      await users(target).update({ id: holder.id }, { githubId: 'held' });
      await users(target).softDelete({ id: holder.id });

      const browser = target.http();
      await login(browser, 'kim', 'kim-password');
      const state = (await browser.get('/api/oauth/state')).body.data;
      const response = await browser.get('/api/oauth/github').query({ code: github.issueCode({ login: 'held' }), state });
      expect(response.body).toEqual({ success: false, message: '该 GitHub 账户已被绑定' });
      expect((await findUser(target, { id: kim.id }))?.githubId).toBe('');
    });

    it('does not bind through a session whose user was banned since', async () => {
      const leo = await seedUser(target.app.get(DataSource), { username: 'leo', password: 'leo-password' });
      const browser = target.http();
      await login(browser, 'leo', 'leo-password');
      const state = (await browser.get('/api/oauth/state')).body.data;
      await users(target).update({ id: leo.id }, { status: 2 });
      const response = await browser.get('/api/oauth/github').query({ code: github.issueCode({ login: 'leo-gh' }), state });
      expect(response.body).toEqual({ success: false, message: '用户已被封禁' });
      expect((await findUser(target, { id: leo.id }))?.githubId).toBe('');
    });
  });
});
