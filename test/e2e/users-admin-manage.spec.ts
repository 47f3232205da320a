import bcrypt from 'bcryptjs';
import type { TestApp } from '../support/app';
import { usersAdminFixture } from './users-admin-support';
import { balanceRow, call, type Caller, dataSource, logRows, register, seedCaller, setOptions, stateSnapshot } from './users-support';

/**
 * Admin user management, changing users: edit (quota through the ledger), manage (disable, enable, promote, demote,
 * cancel) and hard delete, with new-api's role guards. List, search, get and create are in users-admin.spec.ts.
 */
describe('users: admin management (edit, manage, delete)', () => {
  const fixture = usersAdminFixture();
  const { users, row } = fixture;
  let target: TestApp;
  let root: Caller;
  let admin: Caller;
  let otherAdmin: Caller;

  beforeAll(() => {
    ({ target, root, admin, otherAdmin } = fixture.context);
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
