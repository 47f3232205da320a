import bcrypt from 'bcryptjs';
import { DataSource } from 'typeorm';
import { createTestApp, type TestApp } from '../support/app';
import { seedUser, type SeededUser } from '../support/users';
import { SmtpFake } from '../fakes/smtp-fake';
import { login, mailedLink, redis, setOptions, smtpOptions, users, usersSnapshot } from './auth-support';
import { sessionFor } from './users-support';

/** GET /api/reset_password and POST /api/user/reset (a single-use link, valid 10 minutes), end to end by mail. */
describe('auth: password reset', () => {
  let target: TestApp;
  let smtp: SmtpFake;
  let ivy: SeededUser;

  beforeAll(async () => {
    smtp = await SmtpFake.start();
    target = await createTestApp({ env: { MAIL_BACKOFF_MS: '50' } });
    await setOptions(target, { ...smtpOptions(smtp), SystemName: 'Tollgate', ServerAddress: '' });
    ivy = await seedUser(target.app.get(DataSource), { username: 'ivy', password: 'ivy-old-password' });
    await users(target).update({ id: ivy.id }, { email: 'ivy@example.com' });
  });
  afterAll(async () => {
    await target.close();
    await smtp.close();
  });
  afterEach(async () => {
    await setOptions(target, { ...smtpOptions(smtp), ServerAddress: '' });
  });

  /** Ivy's password is whatever the last reset made it: set a known one. */
  async function freshIvyPassword(): Promise<string> {
    const password = 'ivy-known-password';
    await users(target).update({ id: ivy.id }, { password: await bcrypt.hash(password, 4) });
    return password;
  }

  async function mailedResetLink(email: string): Promise<URL> {
    const before = smtp.messages.length;
    const response = await target.http().get('/api/reset_password').query({ email });
    expect(response.body).toEqual({ success: true, message: '' });
    const mail = await smtp.waitFor((candidate) => smtp.messages.indexOf(candidate) >= before && candidate.to.includes(email));
    expect(mail.subject).toBe('Tollgate密码重置');
    return mailedLink(mail);
  }

  it('mails a link to <ServerAddress>/user/reset that, posted back, sets and returns a new 12-hex password', async () => {
    const link = await mailedResetLink('ivy@example.com');
    expect(`${link.origin}${link.pathname}`).toBe('http://localhost:3000/user/reset');
    expect(link.searchParams.get('email')).toBe('ivy@example.com');
    expect(link.searchParams.get('token')).toMatch(/^[0-9a-f]{32}$/);

    const reset = await target
      .http()
      .post('/api/user/reset')
      .send({ email: link.searchParams.get('email'), token: link.searchParams.get('token') });
    expect(reset.body).toEqual({ success: true, message: '', data: expect.stringMatching(/^[0-9a-f]{12}$/) });

    expect((await login(target.http(), 'ivy', reset.body.data)).body.success).toBe(true);
    expect((await login(target.http(), 'ivy', 'ivy-old-password')).body.success).toBe(false);
  });

  it('uses the link once: a second click is refused and the password stays', async () => {
    const link = await mailedResetLink('ivy@example.com');
    const body = { email: link.searchParams.get('email'), token: link.searchParams.get('token') };
    const first = await target.http().post('/api/user/reset').send(body);
    expect(first.body.success).toBe(true);
    const second = await target.http().post('/api/user/reset').send(body);
    expect(second.body).toEqual({ success: false, message: '重置链接非法或已过期' });
    expect((await login(target.http(), 'ivy', first.body.data)).body.success).toBe(true);
  });

  it('ends every session of the account once the password is reset', async () => {
    const jan = await seedUser(target.app.get(DataSource), { username: 'jan', password: 'jan-old-password' });
    await users(target).update({ id: jan.id }, { email: 'jan@example.com' });
    const laptop = await sessionFor(target, 'jan', 'jan-old-password');
    const phone = await sessionFor(target, 'jan', 'jan-old-password');
    const ivySession = await sessionFor(target, 'ivy', await freshIvyPassword());
    const link = await mailedResetLink('jan@example.com');
    const body = { email: link.searchParams.get('email'), token: link.searchParams.get('token') };
    expect((await target.http().post('/api/user/reset').send(body)).body.success).toBe(true);
    for (const ended of [laptop, phone]) expect((await ended.get('/api/user/self')).status).toBe(401);
    expect((await ivySession.get('/api/user/self')).body.success).toBe(true);
  });

  it('lets exactly one of two simultaneous clicks win', async () => {
    const link = await mailedResetLink('ivy@example.com');
    const body = { email: link.searchParams.get('email'), token: link.searchParams.get('token') };
    const answers = await Promise.all([1, 2, 3].map(() => target.http().post('/api/user/reset').send(body)));
    expect(answers.filter((answer) => answer.body.success)).toHaveLength(1);
  });

  it('builds the link on the ServerAddress option, and URL-encodes the address (fix)', async () => {
    await setOptions(target, { ServerAddress: 'https://console.example.com/' });
    const plus = await seedUser(target.app.get(DataSource), { username: 'plus', password: 'plus-password' });
    await users(target).update({ id: plus.id }, { email: 'plus+tag@example.com' });
    const link = await mailedResetLink('plus+tag@example.com');
    expect(link.toString()).toMatch(/^https:\/\/console\.example\.com\/user\/reset\?email=plus%2Btag%40example\.com&token=[0-9a-f]{32}$/);
    const reset = await target
      .http()
      .post('/api/user/reset')
      .send({ email: link.searchParams.get('email'), token: link.searchParams.get('token') });
    expect(reset.body.success).toBe(true);
  });

  it('refuses a wrong token, a token for another address, and an expired link, changing nothing', async () => {
    const link = await mailedResetLink('ivy@example.com');
    const token = link.searchParams.get('token')!;
    const before = await usersSnapshot(target);
    const wrong = token.replace(/^./, (first) => (first === '0' ? '1' : '0'));
    expect((await target.http().post('/api/user/reset').send({ email: 'ivy@example.com', token: wrong })).body).toEqual({
      success: false,
      message: '重置链接非法或已过期',
    });
    expect((await target.http().post('/api/user/reset').send({ email: 'other@example.com', token })).body.message).toBe(
      '重置链接非法或已过期',
    );
    await redis(target).pexpire(`${target.config.REDIS_PREFIX}:verification:r:ivy@example.com`, 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await target.http().post('/api/user/reset').send({ email: 'ivy@example.com', token })).body.message).toBe(
      '重置链接非法或已过期',
    );
    expect(await usersSnapshot(target)).toBe(before);
  });

  it('keeps the email-verification code and the reset token apart (different purposes)', async () => {
    const link = await mailedResetLink('ivy@example.com');
    const bind = await target
      .http()
      .get('/api/oauth/email/bind')
      .query({ email: 'ivy@example.com', code: link.searchParams.get('token')! })
      .set('Authorization', ivy.accessToken);
    expect(bind.body).toEqual({ success: false, message: '验证码错误或已过期' });
  });

  it('refuses an address nobody registered, and an invalid one', async () => {
    expect((await target.http().get('/api/reset_password').query({ email: 'nobody@example.com' })).body).toEqual({
      success: false,
      message: '该邮箱地址未注册',
    });
    for (const email of ['', 'ivy', 'ivy@', "' OR 1=1 --"]) {
      expect((await target.http().get('/api/reset_password').query({ email })).body).toEqual({ success: false, message: '无效的参数' });
    }
  });

  it('answers "SMTP 服务器未配置" when mail is not set up', async () => {
    await setOptions(target, { SMTPServer: '' });
    expect((await target.http().get('/api/reset_password').query({ email: 'ivy@example.com' })).body).toEqual({
      success: false,
      message: 'SMTP 服务器未配置',
    });
  });

  it.each([
    ['no body', undefined],
    ['missing token', { email: 'ivy@example.com' }],
    ['empty email', { email: '', token: 'f'.repeat(32) }],
    ['a numeric token', { email: 'ivy@example.com', token: 12345 }],
    ['an array token', { email: 'ivy@example.com', token: ['x'] }],
    ['an over-long token', { email: 'ivy@example.com', token: 'f'.repeat(5000) }],
    ['a NUL in the email', { email: 'ivy@example.com\u0000', token: 'f'.repeat(32) }],
  ])('answers 无效的参数 for %s', async (_, body) => {
    const pending = target.http().post('/api/user/reset');
    const response = body === undefined ? await pending : await pending.send(body as object);
    expect([response.status, response.body]).toEqual([200, { success: false, message: '无效的参数' }]);
  });
});
