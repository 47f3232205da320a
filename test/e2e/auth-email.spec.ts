import { DataSource } from 'typeorm';
import { createTestApp, type TestApp } from '../support/app';
import { seedUser, type SeededUser } from '../support/users';
import { SmtpFake } from '../fakes/smtp-fake';
import { findUser, login, mailedCode, redis, requestCode, setOptions, smtpOptions, users, usersSnapshot } from './auth-support';

/** GET /api/verification and GET /api/oauth/email/bind (codes valid 10 minutes), mail delivered over SMTP. */
describe('auth: email verification codes and email binding', () => {
  let target: TestApp;
  let smtp: SmtpFake;
  let carol: SeededUser;

  const RESTRICTIONS_OFF = { EmailDomainRestrictionEnabled: 'false', EmailAliasRestrictionEnabled: 'false' };

  beforeAll(async () => {
    smtp = await SmtpFake.start();
    target = await createTestApp({ env: { MAIL_BACKOFF_MS: '50' } });
    await setOptions(target, { ...smtpOptions(smtp), SystemName: 'Tollgate' });
    const dataSource = target.app.get(DataSource);
    carol = await seedUser(dataSource, { username: 'carol', password: 'carol-password' });
    const taken = await seedUser(dataSource, { username: 'taken' });
    await users(target).update({ id: taken.id }, { email: 'taken@gmail.com' });
    const cancelled = await seedUser(dataSource, { username: 'cancelled' });
    await users(target).update({ id: cancelled.id }, { email: 'cancelled@gmail.com' });
    await users(target).softDelete({ id: cancelled.id });
  });
  afterAll(async () => {
    await target.close();
    await smtp.close();
  });
  afterEach(async () => {
    await setOptions(target, { ...RESTRICTIONS_OFF, ...smtpOptions(smtp) });
  });

  async function loggedIn(user: SeededUser, password: string) {
    const browser = target.http();
    await login(browser, user.username, password);
    return {
      browser,
      bind: (query: Record<string, string>) => browser.get('/api/oauth/email/bind').query(query).set('New-Api-User', String(user.id)),
    };
  }

  describe('GET /api/verification', () => {
    it('mails a 6-hex code to the address under "<SystemName>邮箱验证邮件", through the SMTP account', async () => {
      const response = await target.http().get('/api/verification').query({ email: 'new.person@gmail.com' });
      expect(response.body).toEqual({ success: true, message: '' });
      const mail = await smtp.waitFor((candidate) => candidate.to.includes('new.person@gmail.com'));
      expect(mail.subject).toBe('Tollgate邮箱验证邮件');
      expect(mail.from).toBe('mailer@tollgate.test');
      expect(mail.headers.from).toContain('Tollgate');
      expect(mail.auth).toEqual({ username: 'mailer@tollgate.test', password: 'smtp-secret' });
      expect(mailedCode(mail)).toMatch(/^[0-9a-f]{6}$/);
      expect(mail.body).toContain('验证码 10 分钟内有效');
    });

    it('sends from SMTPFrom when it is set', async () => {
      await setOptions(target, { SMTPFrom: 'noreply@tollgate.test' });
      await target.http().get('/api/verification').query({ email: 'from.check@gmail.com' });
      const mail = await smtp.waitFor((candidate) => candidate.to.includes('from.check@gmail.com'));
      expect(mail.from).toBe('noreply@tollgate.test');
    });

    it.each([
      [''],
      ['not-an-email'],
      ['a@b'],
      ['a@@b.com'],
      ["x' OR 1=1 --@a.com"],
      [`${'a'.repeat(60)}@gmail.com`],
      ['a\u0000b@gmail.com'],
    ])('answers 无效的参数 for %p', async (email) => {
      const response = await target.http().get('/api/verification').query({ email });
      expect(response.body).toEqual({ success: false, message: '无效的参数' });
    });

    it('answers 无效的参数 without the parameter at all', async () => {
      expect((await target.http().get('/api/verification')).body).toEqual({ success: false, message: '无效的参数' });
    });

    it('enforces the domain whitelist exactly, then the alias rule, when enabled', async () => {
      await setOptions(target, { EmailDomainRestrictionEnabled: 'true', EmailDomainWhitelist: 'gmail.com,qq.com' });
      const refused = await target.http().get('/api/verification').query({ email: 'someone@example.com' });
      expect(refused.body).toEqual({
        success: false,
        message:
          "The administrator has enabled the email domain name whitelist, and your email address is not allowed due to special symbols or it's not in the whitelist.",
      });
      expect((await target.http().get('/api/verification').query({ email: 'someone@GMAIL.com' })).body.success).toBe(false);

      await setOptions(target, { EmailAliasRestrictionEnabled: 'true' });
      for (const email of ['some.one@gmail.com', 'someone+tag@qq.com']) {
        expect((await target.http().get('/api/verification').query({ email })).body).toEqual({
          success: false,
          message: '管理员已启用邮箱地址别名限制，您的邮箱地址由于包含特殊符号而被拒绝。',
        });
      }
      expect((await target.http().get('/api/verification').query({ email: 'someone@qq.com' })).body.success).toBe(true);
      // Let the queued mail arrive here, not in the middle of a later test that counts messages.
      await smtp.waitFor((mail) => mail.to.includes('someone@qq.com'));
    });

    it('refuses an address already used, by a live or a cancelled account', async () => {
      for (const email of ['taken@gmail.com', 'cancelled@gmail.com']) {
        expect((await target.http().get('/api/verification').query({ email })).body).toEqual({
          success: false,
          message: '邮箱地址已被占用',
        });
      }
    });

    it('answers "SMTP 服务器未配置" before issuing anything when no SMTP server is set', async () => {
      await setOptions(target, { SMTPServer: '' });
      const before = smtp.messages.length;
      const response = await target.http().get('/api/verification').query({ email: 'nosmtp@gmail.com' });
      expect(response.body).toEqual({ success: false, message: 'SMTP 服务器未配置' });
      expect(await redis(target).keys(`${target.config.REDIS_PREFIX}:verification:v:nosmtp@gmail.com`)).toEqual([]);
      expect(smtp.messages.length).toBe(before);
    });

    it('keeps the code in Redis with a 10-minute lifetime (shared by every api replica)', async () => {
      await requestCode(target.http(), smtp, 'ttl.check@gmail.com');
      const ttl = await redis(target).ttl(`${target.config.REDIS_PREFIX}:verification:v:ttl.check@gmail.com`);
      expect(ttl).toBeGreaterThan(590);
      expect(ttl).toBeLessThanOrEqual(600);
    });
  });

  describe('GET /api/oauth/email/bind', () => {
    it('binds the address proven by the mailed code', async () => {
      const { browser, bind } = await loggedIn(carol, 'carol-password');
      const code = await requestCode(browser, smtp, 'carol@gmail.com');
      expect((await bind({ email: 'carol@gmail.com', code })).body).toEqual({ success: true, message: '' });
      expect((await findUser(target, { id: carol.id }))?.email).toBe('carol@gmail.com');
    });

    it('fix: uses the code up, so it cannot bind a second time', async () => {
      const dave = await seedUser(target.app.get(DataSource), { username: 'dave', password: 'dave-password' });
      const { browser, bind } = await loggedIn(dave, 'dave-password');
      const code = await requestCode(browser, smtp, 'dave@gmail.com');
      expect((await bind({ email: 'dave@gmail.com', code })).body.success).toBe(true);
      await users(target).update({ id: dave.id }, { email: '' });
      expect((await bind({ email: 'dave@gmail.com', code })).body).toEqual({ success: false, message: '验证码错误或已过期' });
      expect((await findUser(target, { id: dave.id }))?.email).toBe('');
    });

    it('refuses a wrong code, a code for another address, and an expired code', async () => {
      const erin = await seedUser(target.app.get(DataSource), { username: 'erin', password: 'erin-password' });
      const { browser, bind } = await loggedIn(erin, 'erin-password');
      const code = await requestCode(browser, smtp, 'erin@gmail.com');
      const before = await usersSnapshot(target);
      const wrong = code === '000000' ? '000001' : '000000';
      expect((await bind({ email: 'erin@gmail.com', code: wrong })).body).toEqual({ success: false, message: '验证码错误或已过期' });
      expect((await bind({ email: 'other@gmail.com', code })).body).toEqual({ success: false, message: '验证码错误或已过期' });
      expect((await bind({ email: 'erin@gmail.com', code: '' })).body).toEqual({ success: false, message: '验证码错误或已过期' });

      // Ten minutes later: Redis has let the code go.
      await redis(target).pexpire(`${target.config.REDIS_PREFIX}:verification:v:erin@gmail.com`, 1);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect((await bind({ email: 'erin@gmail.com', code })).body).toEqual({ success: false, message: '验证码错误或已过期' });
      expect(await usersSnapshot(target)).toBe(before);
    });

    it('drops a code after five wrong guesses (new-api allowed unlimited guessing)', async () => {
      const fay = await seedUser(target.app.get(DataSource), { username: 'fay', password: 'fay-password' });
      const { browser, bind } = await loggedIn(fay, 'fay-password');
      const code = await requestCode(browser, smtp, 'fay@gmail.com');
      const wrong = code === 'aaaaaa' ? 'bbbbbb' : 'aaaaaa';
      for (let attempt = 0; attempt < 5; attempt += 1) await bind({ email: 'fay@gmail.com', code: wrong });
      expect((await bind({ email: 'fay@gmail.com', code })).body).toEqual({ success: false, message: '验证码错误或已过期' });
    });

    it('replaces the previous code when a new one is requested', async () => {
      const gus = await seedUser(target.app.get(DataSource), { username: 'gus', password: 'gus-password' });
      const { browser, bind } = await loggedIn(gus, 'gus-password');
      const first = await requestCode(browser, smtp, 'gus@gmail.com');
      const second = await requestCode(browser, smtp, 'gus@gmail.com');
      if (first !== second) expect((await bind({ email: 'gus@gmail.com', code: first })).body.success).toBe(false);
      expect((await bind({ email: 'gus@gmail.com', code: second })).body.success).toBe(true);
    });

    it('fix: refuses an address another account took after the code was sent', async () => {
      const hal = await seedUser(target.app.get(DataSource), { username: 'hal', password: 'hal-password' });
      const { browser, bind } = await loggedIn(hal, 'hal-password');
      const code = await requestCode(browser, smtp, 'race@gmail.com');
      await users(target).update({ id: carol.id }, { email: 'race@gmail.com' });
      expect((await bind({ email: 'race@gmail.com', code })).body).toEqual({ success: false, message: '邮箱地址已被占用' });
      expect((await findUser(target, { id: hal.id }))?.email).toBe('');
    });

    it('needs a logged-in user (UserAuth)', async () => {
      const response = await target.http().get('/api/oauth/email/bind').query({ email: 'x@gmail.com', code: 'abcdef' });
      expect([response.status, response.body]).toEqual([401, { success: false, message: '无权进行此操作，未登录且未提供 access token' }]);
    });

    it('takes the first value of a repeated parameter and survives odd input', async () => {
      const { bind } = await loggedIn(carol, 'carol-password');
      const response = await bind({ email: "'; DELETE FROM users; --", code: '<script>' });
      expect([response.status, response.body]).toEqual([200, { success: false, message: '验证码错误或已过期' }]);
      const repeated = await target
        .http()
        .get('/api/oauth/email/bind?email=a@gmail.com&email=b@gmail.com&code=1&code=2')
        .set('Authorization', carol.accessToken);
      expect(repeated.body).toEqual({ success: false, message: '验证码错误或已过期' });
    });
  });
});
