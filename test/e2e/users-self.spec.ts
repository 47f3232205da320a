import bcrypt from 'bcryptjs';
import { UserEntity } from '#server/modules/users/user.entity';
import { createTestApp, type TestApp } from '../support/app';
import { call, type Caller, dataSource, projected, register, rootCaller, seedCaller, sessionFor, setOptions } from './users-support';

/** The caller's own account: GET/PUT/DELETE /api/user/self, GET /api/user/token, GET /api/user/aff. */
describe('users: own account', () => {
  let target: TestApp;
  let root: Caller;

  beforeAll(async () => {
    target = await createTestApp();
    root = await rootCaller(target);
  });
  afterAll(async () => {
    await target.close();
  });

  const users = () => dataSource(target).getRepository(UserEntity);

  describe('GET /api/user/self', () => {
    it('answers the full user with money from the ledger, password and verification_code always ""', async () => {
      await setOptions(target, { QuotaForNewUser: '1500' });
      const alice = await register(target, 'alice');
      const response = await call(target, alice, 'get', '/api/user/self');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        success: true,
        message: '',
        data: {
          id: alice.id,
          username: 'alice',
          password: '',
          display_name: 'alice',
          role: 1,
          status: 1,
          email: '',
          github_id: '',
          wechat_id: '',
          telegram_id: '',
          verification_code: '',
          access_token: alice.token,
          quota: 1500,
          used_quota: 0,
          request_count: 0,
          group: 'default',
          aff_code: expect.stringMatching(/^[0-9a-zA-Z]{4}$/),
          aff_count: 0,
          aff_quota: 0,
          aff_history_quota: 0,
          inviter_id: 0,
          DeletedAt: null,
        },
      });
      await setOptions(target, { QuotaForNewUser: '0' });
    });

    it('shows root its seeded quota and whether the default password is still in use (root only)', async () => {
      await projected(target);
      const before = await call(target, root, 'get', '/api/user/self');
      expect(before.body.data).toMatchObject({
        username: 'root',
        role: 100,
        display_name: 'Root User',
        quota: 100000000,
        password_is_default: true,
      });
      await call(target, root, 'put', '/api/user/self', { password: 'a-better-password' }).expect(200);
      const after = await call(target, root, 'get', '/api/user/self');
      expect(after.body.data.password_is_default).toBe(false);
      const common = await seedCaller(target);
      expect((await call(target, common, 'get', '/api/user/self')).body.data).not.toHaveProperty('password_is_default');
      await users().update({ id: root.id }, { password: await bcrypt.hash('123456', 4) });
    });
  });

  describe('PUT /api/user/self', () => {
    let bob: Caller & { password: string };
    beforeAll(async () => {
      bob = await register(target, 'bob', { password: 'bob-password' });
    });

    it('writes non-empty username and display name, keeps the password when it is empty', async () => {
      const response = await call(target, bob, 'put', '/api/user/self', { username: 'bobby', display_name: 'Bob B', password: '' });
      expect(response.body).toEqual({ success: true, message: '' });
      const row = await users().findOneByOrFail({ id: bob.id });
      expect(row).toMatchObject({ username: 'bobby', displayName: 'Bob B' });
      expect(await bcrypt.compare('bob-password', row.password)).toBe(true);
      await call(target, bob, 'put', '/api/user/self', { username: '', display_name: '' }).expect(200);
      expect(await users().findOneByOrFail({ id: bob.id })).toMatchObject({ username: 'bobby', displayName: 'Bob B' });
    });

    it('changes the password (bcrypt) when one is given, without asking for the old one', async () => {
      await call(target, bob, 'put', '/api/user/self', { password: 'new-password-1' }).expect(200);
      const row = await users().findOneByOrFail({ id: bob.id });
      expect(row.password).toMatch(/^\$2[aby]\$10\$/);
      expect(await bcrypt.compare('new-password-1', row.password)).toBe(true);
    });

    it.each([
      [{ username: 'abcdefghijklm' }, '输入不合法 用户名长度不能超过 12 个字符'],
      [{ password: 'short' }, '输入不合法 密码长度必须在 8 到 20 个字符之间'],
      [{ password: 'p'.repeat(21) }, '输入不合法 密码长度必须在 8 到 20 个字符之间'],
      [{ display_name: '名'.repeat(21) }, '输入不合法 显示名称长度不能超过 20 个字符'],
      [{ username: 5 }, '无效的参数'],
      [{ password: ['x'] }, '无效的参数'],
    ])('refuses %j with "%s" and changes nothing', async (body, message) => {
      const before = await users().findOneByOrFail({ id: bob.id });
      const response = await call(target, bob, 'put', '/api/user/self', body);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ success: false, message });
      expect(await users().findOneByOrFail({ id: bob.id })).toEqual(before);
    });

    it('answers a taken username (soft-deleted users included) with a clear message, not a database error', async () => {
      const carol = await register(target, 'carol');
      await users().softDelete({ id: carol.id });
      for (const username of ['root', 'carol']) {
        const response = await call(target, bob, 'put', '/api/user/self', { username });
        expect(response.body).toEqual({ success: false, message: '用户名已存在，或已注销' });
      }
      expect((await users().findOneByOrFail({ id: bob.id })).username).toBe('bobby');
    });

    it('keeps a live session working after a rename', async () => {
      const dave = await register(target, 'dave', { password: 'dave-password' });
      const session = await sessionFor(target, 'dave', 'dave-password');
      await session.put('/api/user/self', { username: 'david' }).expect(200);
      const self = await session.get('/api/user/self');
      expect(self.body.data).toMatchObject({ id: dave.id, username: 'david' });
    });
  });

  describe('DELETE /api/user/self', () => {
    it('refuses root', async () => {
      const response = await call(target, root, 'delete', '/api/user/self');
      expect(response.body).toEqual({ success: false, message: '不能删除超级管理员账户' });
      expect((await users().findOneByOrFail({ id: root.id })).deletedAt).toBeNull();
    });

    it('cancels the account (soft delete) and ends the session server-side', async () => {
      const erin = await register(target, 'erin', { password: 'erin-password' });
      const session = await sessionFor(target, 'erin', 'erin-password');
      const response = await session.delete('/api/user/self');
      expect(response.body).toEqual({ success: true, message: '' });
      expect([response.headers['set-cookie']].flat().join(';')).toMatch(/session=;/);
      const row = await users().findOne({ where: { id: erin.id }, withDeleted: true });
      expect(row?.deletedAt).toBeInstanceOf(Date);
      const after = await session.get('/api/user/self');
      expect(after.status).toBe(401);
      // The access token dies with the account too.
      expect((await call(target, erin, 'get', '/api/user/self')).body).toEqual({
        success: false,
        message: '无权进行此操作，access token 无效',
      });
    });
  });

  describe('GET /api/user/token', () => {
    it('makes a new 28- or 32-character base64 token on every call, which then authenticates', async () => {
      const frank = await register(target, 'frank');
      const seen = new Set<string>();
      for (let i = 0; i < 8; i++) {
        const response = await call(target, { ...frank, token: i === 0 ? frank.token : [...seen].at(-1)! }, 'get', '/api/user/token');
        expect(response.body).toMatchObject({ success: true, message: '' });
        const token: string = response.body.data;
        expect(token).toMatch(/^[A-Za-z0-9+/=]+$/);
        expect([28, 32]).toContain(token.length);
        expect(seen.has(token)).toBe(false);
        seen.add(token);
      }
      const latest = [...seen].at(-1)!;
      for (const header of [latest, `Bearer ${latest}`]) {
        const self = await target.http().get('/api/user/self').set('Authorization', header);
        expect(self.body.data).toMatchObject({ id: frank.id, access_token: latest });
      }
      // The previous token was replaced.
      const old = await target
        .http()
        .get('/api/user/self')
        .set('Authorization', [...seen][0]);
      expect(old.body).toEqual({ success: false, message: '无权进行此操作，access token 无效' });
    });
  });

  describe('GET /api/user/aff', () => {
    it('returns the invite code, generating one on demand for an account without (root) and keeping it', async () => {
      expect((await users().findOneByOrFail({ id: root.id })).affCode).toBeNull();
      const first = await call(target, root, 'get', '/api/user/aff');
      expect(first.body).toEqual({ success: true, message: '', data: expect.stringMatching(/^[0-9a-zA-Z]{4}$/) });
      const second = await call(target, root, 'get', '/api/user/aff');
      expect(second.body.data).toBe(first.body.data);
      expect((await users().findOneByOrFail({ id: root.id })).affCode).toBe(first.body.data);
    });

    it('gives two simultaneous first calls the same code', async () => {
      const gina = await seedCaller(target);
      const answers = await Promise.all([1, 2, 3, 4].map(() => call(target, gina, 'get', '/api/user/aff')));
      expect(new Set(answers.map((answer) => answer.body.data)).size).toBe(1);
    });

    it('returns the code registration gave', async () => {
      const hank = await register(target, 'hank');
      const row = await users().findOneByOrFail({ id: hank.id });
      const answer = await call(target, hank, 'get', '/api/user/aff');
      expect(answer.body).toEqual({ success: true, message: '', data: row.affCode });
    });
  });
});
