import bcrypt from 'bcryptjs';
import type { TestApp } from '../support/app';
import { usersAdminFixture } from './users-admin-support';
import { balanceRow, call, type Caller, logRows, projected, register, seedCaller, setOptions, stateSnapshot } from './users-support';

/**
 * Admin user management, finding and creating: list, search, get and create, with new-api's role guards. Editing,
 * manage actions and hard delete are in users-admin-manage.spec.ts.
 */
describe('users: admin management', () => {
  const fixture = usersAdminFixture();
  const { users } = fixture;
  let target: TestApp;
  let root: Caller;
  let admin: Caller;
  let otherAdmin: Caller;

  beforeAll(() => {
    ({ target, root, admin, otherAdmin } = fixture.context);
  });

  describe('GET /api/user/?p', () => {
    let ids: number[];
    beforeAll(async () => {
      ids = [];
      for (let i = 0; i < 14; i++) ids.push((await seedCaller(target, { username: `list${String(i).padStart(2, '0')}` })).id);
      await users().softDelete({ id: ids[13] });
    });

    it('pages by 10, newest first, 0-based, cancelled users included, never a password hash', async () => {
      const all = await users().find({ withDeleted: true, order: { id: 'DESC' } });
      const first = await call(target, admin, 'get', '/api/user/?p=0');
      expect(first.body.success).toBe(true);
      expect(first.body.data.map((user: { id: number }) => user.id)).toEqual(all.slice(0, 10).map((user) => user.id));
      expect(first.body.data[0]).toMatchObject({ id: ids[13], password: '', DeletedAt: expect.any(String) });
      const second = await call(target, admin, 'get', '/api/user/?p=1');
      expect(second.body.data.map((user: { id: number }) => user.id)).toEqual(all.slice(10, 20).map((user) => user.id));
      expect(JSON.stringify(second.body)).not.toContain('$2');
    });

    it('reads a missing, negative or unparsable page as page 0 and a page past the end as empty', async () => {
      const first = (await call(target, admin, 'get', '/api/user/?p=0')).body.data;
      for (const query of ['', '?p=-3', '?p=abc', '?p=1.5', "?p=1'--"]) {
        expect((await call(target, admin, 'get', `/api/user/${query}`)).body.data).toEqual(first);
      }
      expect((await call(target, admin, 'get', '/api/user?p=999999')).body).toEqual({ success: true, message: '', data: [] });
    });

    it('shows the money from the ledger', async () => {
      await projected(target);
      const page = await call(target, root, 'get', `/api/user/?p=${Math.floor(((await users().count({ withDeleted: true })) - 1) / 10)}`);
      const rootRow = page.body.data.find((user: { id: number }) => user.id === root.id);
      expect(rootRow).toMatchObject({ quota: 100000000, username: 'root' });
    });
  });

  describe('GET /api/user/search', () => {
    let zed: Caller;
    let vip: Caller;
    beforeAll(async () => {
      zed = await seedCaller(target, { username: 'zed42' });
      vip = await seedCaller(target, { username: 'zed-vip' });
      await users().update({ id: zed.id }, { email: 'zed@example.com', displayName: 'Zed Z' });
      await users().update({ id: vip.id }, { group: 'vip', displayName: 'Mr 100% \\ back' });
    });
    const search = (query: Record<string, string>) => call(target, admin, 'get', '/api/user/search').query(query);
    const idsOf = (response: { body: { data: Array<{ id: number }> } }) => response.body.data.map((user) => user.id).sort((a, b) => a - b);

    it('matches an integer keyword as an id first', async () => {
      const response = await search({ keyword: String(zed.id) });
      expect(response.body).toMatchObject({ success: true, message: '' });
      expect(idsOf(response)).toEqual([zed.id]);
    });

    it('falls back to username, email or display name LIKE when no id matches', async () => {
      expect(idsOf(await search({ keyword: 'zed' }))).toEqual([zed.id, vip.id].sort((a, b) => a - b));
      expect(idsOf(await search({ keyword: 'example.com' }))).toEqual([zed.id]);
      expect(idsOf(await search({ keyword: 'Zed Z' }))).toEqual([zed.id]);
      // "42" is in zed42's name; no user has id 42.
      expect(idsOf(await search({ keyword: '42' }))).toEqual([zed.id]);
    });

    it('filters by group, also for an id match, then falls back to LIKE within the group', async () => {
      expect(idsOf(await search({ keyword: 'zed', group: 'vip' }))).toEqual([vip.id]);
      expect(idsOf(await search({ keyword: String(zed.id), group: 'vip' }))).toEqual([]);
      expect(idsOf(await search({ keyword: '', group: 'vip' }))).toEqual([vip.id]);
    });

    it('matches everything on an empty keyword, cancelled users included', async () => {
      const total = await users().count({ withDeleted: true });
      expect((await search({ keyword: '' })).body.data).toHaveLength(total);
    });

    it('treats injection strings, a lone backslash and NUL as text', async () => {
      for (const keyword of ["' OR '1'='1", "zed'; DROP TABLE users; --", 'a\u0000b']) {
        const response = await search({ keyword });
        expect(response.status).toBe(200);
        expect(response.body).toEqual({ success: true, message: '', data: [] });
      }
      // A lone backslash is a character to find, not a LIKE escape.
      expect(idsOf(await search({ keyword: '\\' }))).toEqual([vip.id]);
      expect(idsOf(await search({ keyword: '\\ back' }))).toEqual([vip.id]);
      expect(idsOf(await search({ keyword: '100%' }))).toEqual([vip.id]);
      expect(await users().count({ withDeleted: true })).toBeGreaterThan(5);
    });
  });

  describe('GET /api/user/:id', () => {
    it('answers a common user to an admin, with the account revision the edit form sends back', async () => {
      await setOptions(target, { QuotaForNewUser: '700' });
      const user = await register(target, 'getme');
      await setOptions(target, { QuotaForNewUser: '0' });
      const response = await call(target, admin, 'get', `/api/user/${user.id}`);
      expect(response.body).toMatchObject({
        success: true,
        message: '',
        data: { id: user.id, username: 'getme', quota: 700, account_revision: 0, password: '' },
      });
      const fresh = await seedCaller(target);
      expect((await call(target, admin, 'get', `/api/user/${fresh.id}/`)).body.data).toMatchObject({ quota: 0, account_revision: -1 });
    });

    it('refuses peers and superiors unless the caller is root', async () => {
      for (const id of [otherAdmin.id, root.id, admin.id]) {
        expect((await call(target, admin, 'get', `/api/user/${id}`)).body).toEqual({
          success: false,
          message: '无权获取同级或更高等级用户的信息',
        });
      }
      expect((await call(target, root, 'get', `/api/user/${otherAdmin.id}`)).body.data).toMatchObject({ id: otherAdmin.id, role: 10 });
      expect((await call(target, root, 'get', `/api/user/${root.id}`)).body.data).toMatchObject({ id: root.id, role: 100 });
    });

    it('does not find cancelled users, and says so for ids no user can have', async () => {
      const gone = await seedCaller(target);
      await users().softDelete({ id: gone.id });
      for (const id of [gone.id, 999999, 0, -1, 99999999999]) {
        expect((await call(target, admin, 'get', `/api/user/${id}`)).body).toEqual({ success: false, message: '用户不存在' });
      }
      for (const id of ['abc', '1.5', "1'%20OR%201=1"]) {
        expect((await call(target, admin, 'get', `/api/user/${id}`)).body).toEqual({ success: false, message: '无效的参数' });
      }
    });
  });

  describe('POST /api/user/', () => {
    it('creates a common user (trimmed name, display name defaulting to it) with the new-user quota and its log row', async () => {
      await setOptions(target, { QuotaForNewUser: '500000' });
      const response = await call(target, admin, 'post', '/api/user/', { username: '  newbie ', password: 'newbie-pass', role: 1 });
      await setOptions(target, { QuotaForNewUser: '0' });
      expect(response.body).toEqual({ success: true, message: '' });
      const created = await users().findOneByOrFail({ username: 'newbie' });
      expect(created).toMatchObject({ displayName: 'newbie', role: 1, status: 1, group: 'default', inviterId: 0, email: '' });
      expect(created.affCode).toMatch(/^[0-9a-zA-Z]{4}$/);
      expect(await bcrypt.compare('newbie-pass', created.password)).toBe(true);
      expect(await balanceRow(target, created.id)).toMatchObject({ quota: 500000 });
      expect(await logRows(target, created.id)).toEqual([{ type: 4, content: '新用户注册赠送 ＄1.000000 额度', username: 'newbie' }]);
    });

    it('always creates role 1, whatever lower role is asked', async () => {
      await call(target, root, 'post', '/api/user/', { username: 'asked10', password: 'password10', display_name: 'Ten', role: 10 }).expect(
        200,
      );
      expect(await users().findOneByOrFail({ username: 'asked10' })).toMatchObject({ role: 1, displayName: 'Ten' });
    });

    it.each([
      [{ username: '', password: 'password1' }, '无效的参数'],
      [{ username: '   ', password: 'password1' }, '无效的参数'],
      [{ username: 'nopass' }, '无效的参数'],
      [{ password: 'password1' }, '无效的参数'],
      [{ username: 'x', password: 'short' }, '输入不合法 密码长度必须在 8 到 20 个字符之间'],
      [{ username: 'thirteenchars', password: 'password1' }, '输入不合法 用户名长度不能超过 12 个字符'],
      [{ username: 'x', password: 'password1', display_name: 'd'.repeat(21) }, '输入不合法 显示名称长度不能超过 20 个字符'],
      [{ username: 'peer', password: 'password1', role: 10 }, '无法创建权限大于等于自己的用户'],
      [{ username: 'boss', password: 'password1', role: 100 }, '无法创建权限大于等于自己的用户'],
      [{ username: 'admin2', password: 'password1' }, '用户名已存在，或已注销'],
      [{ username: 123, password: 'password1' }, '无效的参数'],
      [{ username: 'x', password: 'password1', role: '1' }, '无效的参数'],
    ])('refuses %j with "%s" as an admin, creating nothing', async (body, message) => {
      const before = await stateSnapshot(target);
      expect((await call(target, admin, 'post', '/api/user/', body)).body).toEqual({ success: false, message });
      expect(await stateSnapshot(target)).toEqual(before);
    });

    it('lets root create nothing at or above root either', async () => {
      expect((await call(target, root, 'post', '/api/user/', { username: 'root2', password: 'password1', role: 100 })).body).toEqual({
        success: false,
        message: '无法创建权限大于等于自己的用户',
      });
    });
  });
});
