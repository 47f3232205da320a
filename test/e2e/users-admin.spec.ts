import bcrypt from 'bcryptjs';
import { UserEntity } from '#server/modules/users/user.entity';
import { createTestApp, type TestApp } from '../support/app';
import {
  balanceRow,
  call,
  type Caller,
  dataSource,
  logRows,
  projected,
  register,
  rootCaller,
  seedCaller,
  setOptions,
  stateSnapshot,
} from './users-support';

/** Admin user management: list, search, get, create, edit, manage, hard delete, with new-api's role guards. */
describe('users: admin management', () => {
  let target: TestApp;
  let root: Caller;
  let admin: Caller;
  let otherAdmin: Caller;

  beforeAll(async () => {
    target = await createTestApp();
    root = await rootCaller(target);
    admin = await seedCaller(target, { role: 10, username: 'admin1' });
    otherAdmin = await seedCaller(target, { role: 10, username: 'admin2' });
  });
  afterAll(async () => {
    await target.close();
  });

  const users = () => dataSource(target).getRepository(UserEntity);
  const row = (id: number) => users().findOne({ where: { id }, withDeleted: true });

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

  describe('PUT /api/user/', () => {
    let ivy: Caller;
    beforeEach(async () => {
      await users().delete({ username: 'ivy2' });
      ivy = await register(target, `ivy${Math.floor(Math.random() * 1e6)}`.slice(0, 12));
    });
    const form = async (caller: Caller, id: number) => (await call(target, caller, 'get', `/api/user/${id}`)).body.data;

    it('writes username, display name, group and password, and sets the quota through the ledger with a manage log row', async () => {
      const data = await form(admin, ivy.id);
      const response = await call(target, admin, 'put', '/api/user/', {
        ...data,
        username: 'ivy2',
        display_name: 'Ivy',
        group: 'vip',
        password: 'ivy-new-pass',
        quota: 1000000,
      });
      expect(response.body).toEqual({ success: true, message: '' });
      const saved = await users().findOneByOrFail({ id: ivy.id });
      expect(saved).toMatchObject({ username: 'ivy2', displayName: 'Ivy', group: 'vip' });
      expect(await bcrypt.compare('ivy-new-pass', saved.password)).toBe(true);
      // Read-your-writes: the answer came after the projections, so the next read shows the new quota.
      expect((await form(admin, ivy.id)).quota).toBe(1000000);
      expect(await logRows(target, ivy.id)).toEqual([
        { type: 3, content: '管理员将用户额度从 ＄0.000000 额度修改为 ＄2.000000 额度', username: 'ivy2' },
      ]);
      const [event] = await dataSource(target).query(`SELECT type, data, metadata FROM events WHERE stream_id = $1`, [`account-${ivy.id}`]);
      expect(event).toMatchObject({
        type: 'QuotaAdjustedByAdmin',
        data: { before: 0, after: 1000000, adminId: admin.id },
        metadata: { actor: { type: 'user', userId: admin.id, role: 10 }, reasonCode: 'admin_edit' },
      });
    });

    it('keeps the password when it is empty, and writes empty group and zero quota as new-api does', async () => {
      await call(target, admin, 'put', '/api/user/', { ...(await form(admin, ivy.id)), quota: 300 }).expect(200);
      const before = await users().findOneByOrFail({ id: ivy.id });
      await call(target, admin, 'put', '/api/user/', { ...(await form(admin, ivy.id)), password: '', group: '', quota: 0 }).expect(200);
      const after = await users().findOneByOrFail({ id: ivy.id });
      expect(after.password).toBe(before.password);
      expect(after.group).toBe('');
      expect(await balanceRow(target, ivy.id)).toMatchObject({ quota: 0 });
    });

    it('leaves fields the body does not carry alone, and appends nothing when the quota is untouched', async () => {
      const events = await dataSource(target).query('SELECT count(*)::int AS count FROM events');
      await call(target, admin, 'put', '/api/user/', { id: ivy.id, display_name: 'Only this' }).expect(200);
      expect(await users().findOneByOrFail({ id: ivy.id })).toMatchObject({
        username: ivy.username,
        displayName: 'Only this',
        group: 'default',
      });
      await call(target, admin, 'put', '/api/user/', await form(admin, ivy.id)).expect(200);
      expect(await dataSource(target).query('SELECT count(*)::int AS count FROM events')).toEqual(events);
    });

    it('refuses a quota edit decided against a balance that has moved since the form was loaded, changing nothing', async () => {
      const stale = await form(admin, ivy.id);
      // Meanwhile another admin changes the quota.
      await call(target, root, 'put', '/api/user/', { ...(await form(root, ivy.id)), quota: 2500000 }).expect(200);
      const before = await stateSnapshot(target);
      const response = await call(target, admin, 'put', '/api/user/', { ...stale, display_name: 'Stale', quota: 42 });
      expect(response.body).toEqual({
        success: false,
        message: '用户额度已在您编辑期间发生变化（当前为 ＄5.000000 额度），请刷新后重新修改',
      });
      expect(await stateSnapshot(target)).toEqual(before);
      // The same stale form without a quota change goes through: only the quota is guarded.
      await call(target, admin, 'put', '/api/user/', { ...stale, display_name: 'Fresh' }).expect(200);
      expect(await users().findOneByOrFail({ id: ivy.id })).toMatchObject({ displayName: 'Fresh' });
      expect(await balanceRow(target, ivy.id)).toMatchObject({ quota: 2500000 });
    });

    it("refuses peers and superiors, and raising a role to the caller's, unless the caller is root", async () => {
      const data = await form(root, otherAdmin.id);
      expect((await call(target, admin, 'put', '/api/user/', { ...data, display_name: 'x' })).body).toEqual({
        success: false,
        message: '无权更新同权限等级或更高权限等级的用户信息',
      });
      expect((await call(target, admin, 'put', '/api/user/', { id: root.id, display_name: 'x' })).body).toEqual({
        success: false,
        message: '无权更新同权限等级或更高权限等级的用户信息',
      });
      expect((await call(target, admin, 'put', '/api/user/', { id: ivy.id, role: 10 })).body).toEqual({
        success: false,
        message: '无权将其他用户权限等级提升到大于等于自己的权限等级',
      });
      await call(target, root, 'put', '/api/user/', { ...data, display_name: 'Renamed by root', role: 100 }).expect(200);
      // Root may send any role, but the edit never writes it.
      expect(await users().findOneByOrFail({ id: otherAdmin.id })).toMatchObject({ displayName: 'Renamed by root', role: 10 });
    });

    it.each([
      [{}, '无效的参数'],
      [{ id: 0, username: 'x' }, '无效的参数'],
      [{ id: '5' }, '无效的参数'],
      [{ id: 987654, username: 'x' }, '用户不存在'],
      [{ username: 'abcdefghijklm' }, '输入不合法 用户名长度不能超过 12 个字符'],
      [{ username: '' }, '输入不合法 用户名不能为空'],
      [{ password: 'short' }, '输入不合法 密码长度必须在 8 到 20 个字符之间'],
      [{ quota: -1 }, '输入不合法 额度不能小于 0'],
      [{ quota: 1.5 }, '无效的参数'],
      [{ quota: '100' }, '无效的参数'],
      [{ group: 'g'.repeat(65) }, '输入不合法 分组名称长度不能超过 64 个字符'],
      [{ username: 'root' }, '用户名已存在，或已注销'],
      [{ account_revision: 99, quota: 5 }, '无效的参数'],
    ])('refuses %j with "%s", changing nothing', async (body, message) => {
      const before = await stateSnapshot(target);
      const response = await call(target, admin, 'put', '/api/user/', { id: ivy.id, ...body });
      expect(response.body).toEqual({ success: false, message });
      expect(await stateSnapshot(target)).toEqual(before);
    });

    it('does not find cancelled users', async () => {
      await users().softDelete({ id: ivy.id });
      expect((await call(target, admin, 'put', '/api/user/', { id: ivy.id, display_name: 'x' })).body).toEqual({
        success: false,
        message: '用户不存在',
      });
    });
  });

  describe('POST /api/user/manage', () => {
    const manage = (caller: Caller, id: number, action: string) => call(target, caller, 'post', '/api/user/manage', { id, action });
    const roleStatus = (role: number, status: number) => ({
      id: 0,
      username: '',
      password: '',
      display_name: '',
      role,
      status,
      email: '',
      github_id: '',
      wechat_id: '',
      telegram_id: '',
      verification_code: '',
      access_token: null,
      quota: 0,
      used_quota: 0,
      request_count: 0,
      group: '',
      aff_code: '',
      aff_count: 0,
      aff_quota: 0,
      aff_history_quota: 0,
      inviter_id: 0,
      DeletedAt: null,
    });

    it('disables, enables, promotes and demotes, answering {role, status} as an otherwise empty user', async () => {
      const jack = await seedCaller(target);
      expect((await manage(admin, jack.id, 'disable')).body).toEqual({ success: true, message: '', data: roleStatus(1, 2) });
      expect((await row(jack.id))?.status).toBe(2);
      expect((await manage(admin, jack.id, 'enable')).body).toEqual({ success: true, message: '', data: roleStatus(1, 1) });
      expect((await manage(root, jack.id, 'promote')).body).toEqual({ success: true, message: '', data: roleStatus(10, 1) });
      expect((await row(jack.id))?.role).toBe(10);
      expect((await manage(root, jack.id, 'demote')).body).toEqual({ success: true, message: '', data: roleStatus(1, 1) });
      expect((await manage(admin, jack.id, 'something-else')).body).toEqual({ success: true, message: '', data: roleStatus(1, 1) });
    });

    it('cancels (soft-deletes) with delete; the cancelled user can still be acted on and stays listed', async () => {
      const kim = await seedCaller(target);
      expect((await manage(admin, kim.id, 'delete')).body).toEqual({ success: true, message: '', data: roleStatus(1, 1) });
      expect((await row(kim.id))?.deletedAt).toBeInstanceOf(Date);
      expect((await manage(admin, kim.id, 'disable')).body.data).toEqual(roleStatus(1, 2));
      const listed = (await call(target, admin, 'get', `/api/user/search?keyword=${kim.id}`)).body.data;
      expect(listed).toEqual([expect.objectContaining({ id: kim.id, status: 2, DeletedAt: expect.any(String) })]);
    });

    it('answers every refusal new-api answers, changing nothing', async () => {
      const common = await seedCaller(target);
      const cases: Array<[Caller, number, string, string]> = [
        [admin, otherAdmin.id, 'disable', '无权更新同权限等级或更高权限等级的用户信息'],
        [admin, root.id, 'enable', '无权更新同权限等级或更高权限等级的用户信息'],
        [admin, admin.id, 'demote', '无权更新同权限等级或更高权限等级的用户信息'],
        [admin, common.id, 'promote', '普通管理员用户无法提升其他用户为管理员'],
        [admin, common.id, 'demote', '该用户已经是普通用户'],
        [root, otherAdmin.id, 'promote', '该用户已经是管理员'],
        [root, root.id, 'disable', '无法禁用超级管理员用户'],
        [root, root.id, 'delete', '无法删除超级管理员用户'],
        [root, root.id, 'demote', '无法降级超级管理员用户'],
        [root, 987654, 'disable', '用户不存在'],
      ];
      const before = await stateSnapshot(target);
      for (const [caller, id, action, message] of cases) {
        expect({ action, body: (await manage(caller, id, action)).body }).toEqual({ action, body: { success: false, message } });
      }
      expect(await stateSnapshot(target)).toEqual(before);
    });

    it('lets root act on admins', async () => {
      const lee = await seedCaller(target, { role: 10 });
      expect((await manage(root, lee.id, 'disable')).body.data).toEqual(roleStatus(10, 2));
      expect((await manage(root, lee.id, 'demote')).body.data).toEqual(roleStatus(1, 2));
      expect((await manage(root, lee.id, 'delete')).body.success).toBe(true);
    });
  });

  describe('DELETE /api/user/:id', () => {
    it('erases a user whose account has no ledger history, with the normal envelope', async () => {
      const mo = await seedCaller(target);
      const response = await call(target, admin, 'delete', `/api/user/${mo.id}`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ success: true, message: '' });
      expect(await row(mo.id)).toBeNull();
    });

    it('refuses to erase a user whose account has ledger history (cancel them instead)', async () => {
      await setOptions(target, { QuotaForNewUser: '10' });
      const ned = await register(target, 'ned');
      await setOptions(target, { QuotaForNewUser: '0' });
      expect((await call(target, admin, 'delete', `/api/user/${ned.id}`)).body).toEqual({
        success: false,
        message: '该用户的账本已有记录，无法彻底删除，请改用注销',
      });
      expect(await row(ned.id)).not.toBeNull();
    });

    it('refuses peers and superiors, root included (the role must be strictly higher)', async () => {
      expect((await call(target, admin, 'delete', `/api/user/${otherAdmin.id}`)).body).toEqual({
        success: false,
        message: '无权删除同权限等级或更高权限等级的用户',
      });
      expect((await call(target, root, 'delete', `/api/user/${root.id}`)).body).toEqual({
        success: false,
        message: '无权删除同权限等级或更高权限等级的用户',
      });
      const oz = await seedCaller(target, { role: 10 });
      expect((await call(target, root, 'delete', `/api/user/${oz.id}`)).body).toEqual({ success: true, message: '' });
    });

    it('answers bad and unknown ids', async () => {
      expect((await call(target, admin, 'delete', '/api/user/abc')).body).toEqual({ success: false, message: '无效的参数' });
      expect((await call(target, admin, 'delete', '/api/user/987654')).body).toEqual({ success: false, message: '用户不存在' });
    });
  });
});
