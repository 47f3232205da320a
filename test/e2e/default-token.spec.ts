import { GitHubFake } from '../fakes/github-fake';
import { createTestApp, type TestApp } from '../support/app';
import { findUser, setOptions } from './auth-support';
import { call, type Caller, dataSource, register, rootCaller } from './users-support';

/**
 * GENERATE_DEFAULT_TOKEN=true (off by default, as in new-api): a self sign-up also gets the token
 * "<username>的初始令牌", unlimited and never expiring, made through the tokens module (its allotment is a ledger
 * event); accounts an admin creates get none.
 */
describe('GENERATE_DEFAULT_TOKEN', () => {
  let target: TestApp;
  let github: GitHubFake;
  let root: Caller;

  beforeAll(async () => {
    github = await GitHubFake.start();
    target = await createTestApp({
      env: { GENERATE_DEFAULT_TOKEN: 'true', GITHUB_OAUTH_URL: github.baseUrl, GITHUB_API_URL: github.baseUrl },
    });
    root = await rootCaller(target);
    await setOptions(target, {
      GitHubOAuthEnabled: 'true',
      GitHubClientId: github.clientId,
      GitHubClientSecret: github.clientSecret,
      RegisterEnabled: 'true',
    });
  });
  afterAll(async () => {
    await target?.close();
    await github?.close();
  });

  const tokenRows = (userId: number): Promise<Array<Record<string, unknown>>> =>
    dataSource(target).query(
      'SELECT id, name, status, expired_time, unlimited_quota, model_limits_enabled, "group" FROM tokens WHERE user_id = $1',
      [userId],
    );

  async function expectDefaultToken(caller: Caller): Promise<void> {
    const rows = await tokenRows(caller.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      name: `${caller.username}的初始令牌`,
      status: 1,
      expired_time: '-1',
      unlimited_quota: true,
      model_limits_enabled: false,
      group: '',
    });
    // The user sees it in their token list at once, with new-api's figures.
    const listed = await call(target, caller, 'get', '/api/token/?p=0&size=10').expect(200);
    expect(listed.body.success).toBe(true);
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0]).toMatchObject({
      name: `${caller.username}的初始令牌`,
      key: expect.stringMatching(/^[0-9A-Za-z]{48}$/),
      unlimited_quota: true,
      expired_time: -1,
      remain_quota: 500000,
      status: 1,
    });
    // The allotment is an event on the token's stream, like any created token's.
    const events: Array<{ type: string }> = await dataSource(target).query('SELECT type FROM events WHERE stream_id = $1', [
      `token-${String(rows[0].id)}`,
    ]);
    expect(events.map((event) => event.type)).toEqual(['TokenQuotaAllotted']);
  }

  it('gives a password registration its default token, answering the new-api shape', async () => {
    const response = await target.http().post('/api/user/register').send({ username: 'newbie', password: 'password123' });
    expect(response.body).toEqual({ success: true, message: '' });
    const user = await findUser(target, { username: 'newbie' });
    const token = `t-${user!.id}-newbie`.padEnd(28, 'x');
    await dataSource(target).query('UPDATE users SET access_token = $1 WHERE id = $2', [token, user!.id]);
    await expectDefaultToken({ id: user!.id, username: 'newbie', token });
  });

  it('gives a CJK username its token too (the name is longer than a console-made token may be)', async () => {
    const registered = await register(target, '新用户名字');
    // register() derives the access token from the name; an HTTP header needs ASCII.
    const token = `t-${registered.id}-cjk`.padEnd(28, 'x');
    await dataSource(target).query('UPDATE users SET access_token = $1 WHERE id = $2', [token, registered.id]);
    await expectDefaultToken({ ...registered, token });
  });

  it('gives a GitHub sign-up its default token, and a later GitHub login makes no second one', async () => {
    const browser = target.http();
    const state = (await browser.get('/api/oauth/state')).body.data as string;
    const signedUp = await browser
      .get('/api/oauth/github')
      .query({ code: github.issueCode({ login: 'octo-default', name: 'Octo' }), state });
    expect(signedUp.body).toMatchObject({ success: true, data: { username: expect.stringMatching(/^github_\d+$/) } });
    const user = await findUser(target, { githubId: 'octo-default' });
    const token = `t-${user!.id}-github`.padEnd(28, 'x');
    await dataSource(target).query('UPDATE users SET access_token = $1 WHERE id = $2', [token, user!.id]);
    await expectDefaultToken({ id: user!.id, username: user!.username, token });

    const again = target.http();
    const againState = (await again.get('/api/oauth/state')).body.data as string;
    const loggedIn = await again
      .get('/api/oauth/github')
      .query({ code: github.issueCode({ login: 'octo-default', name: 'Octo' }), state: againState });
    expect(loggedIn.body.data.id).toBe(user!.id);
    expect(await tokenRows(user!.id)).toHaveLength(1);
  });

  it('gives an account an admin creates no token', async () => {
    const response = await call(target, root, 'post', '/api/user/', {
      username: 'made',
      password: 'password123',
      display_name: 'Made',
    }).expect(200);
    expect(response.body.success).toBe(true);
    const made = await findUser(target, { username: 'made' });
    expect(await tokenRows(made!.id)).toEqual([]);
  });
});
