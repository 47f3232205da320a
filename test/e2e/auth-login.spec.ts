import { DataSource } from 'typeorm';
import { createTestApp, type TestApp } from '../support/app';
import { seedUser, type SeededUser } from '../support/users';
import { login, setOptions, users } from './auth-support';

/**
 * POST /api/user/login, GET /api/user/logout and the session they manage (a Redis session, checked against the
 * database on every call).
 */
describe('auth: password login and sessions', () => {
  let target: TestApp;
  let alice: SeededUser;

  beforeAll(async () => {
    target = await createTestApp();
    alice = await seedUser(target.app.get(DataSource), { username: 'alice', password: 'alice-password' });
    await users(target).update({ id: alice.id }, { email: 'alice@example.com', group: 'vip', displayName: 'Alice A.' });
  });
  afterAll(async () => {
    await target.close();
  });
  afterEach(async () => {
    await setOptions(target, { PasswordLoginEnabled: 'true' });
  });

  /** A UserAuth route whose answer shows whether the caller got through the guard. */
  const probe = (agent: ReturnType<TestApp['http']>) => agent.get('/api/oauth/wechat/bind').query({ code: 'x' });

  it('logs in by username: a session cookie and the new-api user object with only six fields filled', async () => {
    const response = await login(target.http(), 'alice', 'alice-password');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      message: '',
      data: {
        id: alice.id,
        username: 'alice',
        password: '',
        display_name: 'Alice A.',
        role: 1,
        status: 1,
        email: '',
        github_id: '',
        wechat_id: '',
        telegram_id: '',
        verification_code: '',
        access_token: null,
        quota: 0,
        used_quota: 0,
        request_count: 0,
        group: 'vip',
        aff_code: '',
        aff_count: 0,
        aff_quota: 0,
        aff_history_quota: 0,
        inviter_id: 0,
        DeletedAt: null,
      },
    });
    const cookie = [response.headers['set-cookie']].flat().join(';');
    expect(cookie).toMatch(/session=[^;]+/);
    expect(cookie).toMatch(/HttpOnly/i);
  });

  it('logs in by email address too, and accepts a trailing slash', async () => {
    const response = await target.http().post('/api/user/login/').send({ username: 'alice@example.com', password: 'alice-password' });
    expect(response.body).toMatchObject({ success: true, data: { id: alice.id, username: 'alice' } });
  });

  it('prefers an exact username over someone else whose email equals it', async () => {
    const shadow = await seedUser(target.app.get(DataSource), { username: 'x@evil.io', password: 'shadow-password' });
    const victim = await seedUser(target.app.get(DataSource), { username: 'victim', password: 'victim-password' });
    await users(target).update({ id: victim.id }, { email: 'x@evil.io' });
    expect((await login(target.http(), 'x@evil.io', 'shadow-password')).body.data.id).toBe(shadow.id);
    expect((await login(target.http(), 'x@evil.io', 'victim-password')).body).toEqual({
      success: false,
      message: '用户名或密码错误，或用户已被封禁',
    });
  });

  it('accepts a short legacy password at login (root keeps its 6-character default)', async () => {
    await seedUser(target.app.get(DataSource), { username: 'shortpw', password: '123456' });
    expect((await login(target.http(), 'shortpw', '123456')).body.success).toBe(true);
  });

  it('gives one message for a wrong password, an unknown user and a disabled user', async () => {
    const disabled = await seedUser(target.app.get(DataSource), { username: 'banned', password: 'banned-password', status: 2 });
    for (const [username, password] of [
      ['alice', 'wrong-password'],
      ['nobody', 'alice-password'],
      [disabled.username, 'banned-password'],
    ]) {
      const response = await login(target.http(), username, password);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ success: false, message: '用户名或密码错误，或用户已被封禁' });
      expect(response.headers['set-cookie']).toBeUndefined();
    }
  });

  it('refuses a cancelled (soft-deleted) user', async () => {
    const gone = await seedUser(target.app.get(DataSource), { username: 'gone', password: 'gone-password' });
    await users(target).softDelete({ id: gone.id });
    expect((await login(target.http(), 'gone', 'gone-password')).body).toEqual({
      success: false,
      message: '用户名或密码错误，或用户已被封禁',
    });
  });

  it('refuses every login when the administrator turned password login off', async () => {
    await setOptions(target, { PasswordLoginEnabled: 'false' });
    expect((await login(target.http(), 'alice', 'alice-password')).body).toEqual({ success: false, message: '管理员关闭了密码登录' });
  });

  it.each([
    ['no body', undefined],
    ['an empty object', {}],
    ['an empty password', { username: 'alice', password: '' }],
    ['a numeric password', { username: 'alice', password: 12345678 }],
    ['an object as username', { username: { $ne: null }, password: 'x' }],
    ['an array body', [{ username: 'alice', password: 'alice-password' }]],
    ['a NUL in the name', { username: 'ali\u0000ce', password: 'alice-password' }],
    ['an over-long name', { username: 'a'.repeat(10_000), password: 'alice-password' }],
  ])('answers 无效的参数 for %s', async (_, body) => {
    const pending = target.http().post('/api/user/login');
    const response = body === undefined ? await pending : await pending.send(body as object);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: false, message: '无效的参数' });
  });

  it('treats SQL-injection text as a name like any other', async () => {
    for (const username of ["' OR '1'='1", "alice'--", 'alice" OR 1=1 --']) {
      expect((await login(target.http(), username, "' OR '1'='1")).body).toEqual({
        success: false,
        message: '用户名或密码错误，或用户已被封禁',
      });
    }
  });

  it('authenticates later calls with the cookie plus the New-Api-User header, per the new-api rules', async () => {
    const browser = target.http();
    await login(browser, 'alice', 'alice-password');

    expect((await probe(browser)).status).toBe(401);
    expect((await probe(browser)).body).toEqual({ success: false, message: '无权进行此操作，请刷新页面或清空缓存后重试' });
    const notANumber = await probe(browser).set('New-Api-User', 'alice');
    expect([notANumber.status, notANumber.body.message]).toEqual([401, '无权进行此操作，登录信息无效，请重新登录']);
    const someoneElse = await probe(browser).set('New-Api-User', String(alice.id + 1000));
    expect([someoneElse.status, someoneElse.body.message]).toEqual([401, '无权进行此操作，与登录用户不匹配，请重新登录']);
    // Through the guard: the route itself answers (WeChat login is off by default).
    const through = await probe(browser).set('New-API-User', String(alice.id));
    expect([through.status, through.body]).toEqual([200, { success: false, message: '管理员未开启通过微信登录以及注册' }]);
  });

  it('refuses a live session at once when its user is disabled (new-api waited for re-login)', async () => {
    const bob = await seedUser(target.app.get(DataSource), { username: 'bob', password: 'bob-password' });
    const browser = target.http();
    await login(browser, 'bob', 'bob-password');
    await users(target).update({ id: bob.id }, { status: 2 });
    expect((await probe(browser).set('New-Api-User', String(bob.id))).body).toEqual({ success: false, message: '用户已被封禁' });
  });

  it('logs out: the session ends server-side and the cookie is cleared', async () => {
    const browser = target.http();
    const loggedIn = await login(browser, 'alice', 'alice-password');
    const stolenCookie = [loggedIn.headers['set-cookie']].flat()[0].split(';')[0];

    const response = await browser.get('/api/user/logout');
    expect(response.body).toEqual({ success: true, message: '' });
    expect([response.headers['set-cookie']].flat().join(';')).toMatch(/session=;/);

    const after = await probe(browser).set('New-Api-User', String(alice.id));
    expect([after.status, after.body.message]).toEqual([401, '无权进行此操作，未登录且未提供 access token']);
    // A copy of the old cookie is worthless: the session is gone from Redis, not just from the browser.
    const replay = await probe(target.http()).set('Cookie', stolenCookie).set('New-Api-User', String(alice.id));
    expect(replay.status).toBe(401);
  });

  it('logs out harmlessly without a session', async () => {
    expect((await target.http().get('/api/user/logout')).body).toEqual({ success: true, message: '' });
  });

  it('issues a new session id at login (no session fixation)', async () => {
    const browser = target.http();
    const first = await login(browser, 'alice', 'alice-password');
    const second = await login(browser, 'alice', 'alice-password');
    const id = (response: typeof first) => [response.headers['set-cookie']].flat()[0].split(';')[0];
    expect(id(second)).not.toBe(id(first));
    const old = await probe(target.http()).set('Cookie', id(first)).set('New-Api-User', String(alice.id));
    expect(old.status).toBe(401);
  });
});
