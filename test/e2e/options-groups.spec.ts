import { DataSource } from 'typeorm';
import { createTestApp, type TestApp } from '../support/app';
import { seedUser, type SeededUser } from '../support/users';

/** GET /api/group/ (admin) and GET /api/user/groups (public), both derived from GroupRatio and UserUsableGroups. */
describe('groups', () => {
  let target: TestApp;
  let root: SeededUser;
  let admin: SeededUser;
  let common: SeededUser;

  beforeAll(async () => {
    target = await createTestApp();
    const dataSource = target.app.get(DataSource);
    root = await seedUser(dataSource, { role: 100 });
    admin = await seedUser(dataSource, { role: 10 });
    common = await seedUser(dataSource, { role: 1 });
  });
  afterAll(async () => {
    await target.close();
  });

  const setOption = (key: string, value: string) =>
    target
      .http()
      .put('/api/option/')
      .set('Authorization', root.accessToken)
      .send({ key, value })
      .expect(200, { success: true, message: '' });

  it('lists the default GroupRatio names to admins, with or without the trailing slash', async () => {
    for (const path of ['/api/group/', '/api/group']) {
      const response = await target.http().get(path).set('Authorization', admin.accessToken).expect(200);
      expect(response.body.success).toBe(true);
      expect(response.body.data.sort()).toEqual(['default', 'svip', 'vip']);
    }
  });

  it('refuses the group list to common users and anonymous callers', async () => {
    expect((await target.http().get('/api/group/').set('Authorization', common.accessToken).expect(200)).body).toEqual({
      success: false,
      message: '无权进行此操作，权限不足',
    });
    await target.http().get('/api/group/').expect(401);
  });

  it('answers /api/user/groups to anyone with the default intersection', async () => {
    const response = await target.http().get('/api/user/groups').expect(200);
    expect(response.body).toEqual({ success: true, message: '', data: { default: '默认分组', vip: 'vip分组' } });
  });

  it('is not shadowed by /api/user/:id (the static path wins in the router)', async () => {
    // As an admin: a `:id` route would answer a user lookup or an id error here, not the groups map.
    const response = await target.http().get('/api/user/groups/').set('Authorization', admin.accessToken).expect(200);
    expect(response.body.data).toEqual({ default: '默认分组', vip: 'vip分组' });
  });

  it('offers only names present in both GroupRatio and UserUsableGroups, live after a change', async () => {
    await setOption('GroupRatio', '{"default":1,"gold":1.5,"internal":0.5}');
    await setOption('UserUsableGroups', '{"default":"Default","gold":"Gold","vip":"VIP"}');
    expect((await target.http().get('/api/user/groups').expect(200)).body.data).toEqual({ default: 'Default', gold: 'Gold' });
    const names = (await target.http().get('/api/group/').set('Authorization', admin.accessToken).expect(200)).body.data;
    expect(names.sort()).toEqual(['default', 'gold', 'internal']);
  });

  it('answers empty collections rather than failing when a map is emptied', async () => {
    await setOption('UserUsableGroups', '{}');
    expect((await target.http().get('/api/user/groups').expect(200)).body).toEqual({ success: true, message: '', data: {} });
    await setOption('GroupRatio', '{}');
    expect((await target.http().get('/api/group/').set('Authorization', admin.accessToken).expect(200)).body).toEqual({
      success: true,
      message: '',
      data: [],
    });
  });
});
