import { DataSource } from 'typeorm';
import { UserEntity } from '#server/modules/users/user.entity';
import { createTestApp, type TestApp } from '../support/app';
import { discoverRoutes, type DiscoveredRoute } from '../support/routes';
import { seedUser, type SeededUser } from '../support/users';

/**
 * No answer hands a user's secrets to somebody else. An admin who could read root's system access token could call
 * root-only routes with it, so the token appears only in the answer that generates it (GET /api/user/token) and in
 * the owner's own GET /api/user/self. No answer, to anybody, carries a password hash.
 *
 * Every GET route the app registered (found by reflection, so a route added later is walked too) is called as
 * anonymous, common user, admin and root, with each seeded user's id in its path parameters; the write routes that
 * answer users (edit, manage, login, self update) are called too. The answers are searched for every secret.
 */
describe('user secrets in answers', () => {
  let target: TestApp;
  let root: SeededUser;
  let admin: SeededUser;
  let common: SeededUser;
  let hashes: string[];

  /** Routes that change the caller's credentials or session: called on their own below, not in the walk. */
  const CREDENTIAL_ROUTES = new Set(['GET /api/user/token', 'GET /api/user/logout']);

  beforeAll(async () => {
    target = await createTestApp();
    const dataSource = target.app.get(DataSource);
    await dataSource.getRepository(UserEntity).delete({ username: 'root' });
    root = await seedUser(dataSource, { role: 100, username: 'root' });
    admin = await seedUser(dataSource, { role: 10 });
    common = await seedUser(dataSource, { role: 1 });
    const rows: Array<{ password: string }> = await dataSource.query('SELECT password FROM users');
    hashes = rows.map((row) => row.password);
    expect(hashes.every((hash) => hash.startsWith('$2'))).toBe(true);
  });
  afterAll(async () => {
    await target.close();
  });

  const everyone = () => [root, admin, common];

  /** The secrets found in an answer that the caller may not see. */
  function leaks(text: string, caller: SeededUser | null, ownTokenAllowed: boolean): string[] {
    const found: string[] = [];
    for (const user of everyone()) {
      if (!text.includes(user.accessToken)) continue;
      if (ownTokenAllowed && caller?.id === user.id) continue;
      found.push(`access token of ${user.username}`);
    }
    for (const hash of hashes) if (text.includes(hash)) found.push('a password hash');
    if (/\$2[aby]\$\d\d\$/.test(text)) found.push('a bcrypt hash');
    return found;
  }

  function paths(route: DiscoveredRoute): string[] {
    if (!route.path.includes(':')) return [route.path];
    return everyone().map((user) => route.path.replace(/:[A-Za-z_]+/g, String(user.id)));
  }

  it("no GET answer, to any role, carries another user's access token or any password hash", async () => {
    const routes = discoverRoutes(target.app).filter((route) => route.method === 'GET' && !CREDENTIAL_ROUTES.has(`GET ${route.path}`));
    expect(routes.some((route) => route.path === '/api/user/search')).toBe(true);
    const found: string[] = [];
    let userAnswers = 0;
    for (const route of routes) {
      for (const path of paths(route)) {
        for (const caller of [null, common, admin, root]) {
          let pending = target.http().get(path);
          if (caller) pending = pending.set('Authorization', caller.accessToken);
          const response = await pending;
          const text = response.text;
          if (text.includes('"access_token"')) userAnswers += 1;
          const own = path === '/api/user/self';
          for (const leak of leaks(text, caller, own)) found.push(`${path} as ${caller?.username ?? 'anonymous'}: ${leak}`);
        }
      }
    }
    expect(found).toEqual([]);
    // The walk did reach user answers (list, search, get, self), so it searched something.
    expect(userAnswers).toBeGreaterThan(5);
  });

  it('lists, searches and gets users for admins and root without any access token', async () => {
    for (const caller of [admin, root]) {
      const list = await target.http().get('/api/user/?p=0').set('Authorization', caller.accessToken);
      expect(list.body.success).toBe(true);
      expect(list.body.data.length).toBeGreaterThanOrEqual(3);
      expect(list.body.data.map((user: { access_token: unknown }) => user.access_token)).toEqual(list.body.data.map(() => null));
      const search = await target.http().get('/api/user/search?keyword=root').set('Authorization', caller.accessToken);
      expect(search.body.data).toEqual([expect.objectContaining({ username: 'root', access_token: null, password: '' })]);
      // An admin may read only lower roles; root reads the admin.
      const readable = caller === root ? admin : common;
      const one = await target.http().get(`/api/user/${readable.id}`).set('Authorization', caller.accessToken);
      expect(one.body.data).toMatchObject({ id: readable.id, access_token: null, password: '' });
    }
  });

  it('an admin cannot use anything it was answered to call root-only routes', async () => {
    const list = await target.http().get('/api/user/?p=0').set('Authorization', admin.accessToken);
    const tokens = list.body.data.map((user: { access_token: string | null }) => user.access_token).filter((token: string | null) => token);
    expect(tokens).toEqual([]);
    const options = await target.http().get('/api/option/').set('Authorization', admin.accessToken);
    expect(options.body).toEqual({ success: false, message: '无权进行此操作，权限不足' });
  });

  it('the owner reads its own token in GET /api/user/self, and GET /api/user/token answers only the new one', async () => {
    const self = await target.http().get('/api/user/self').set('Authorization', common.accessToken);
    expect(self.body.data).toMatchObject({ id: common.id, access_token: common.accessToken, password: '' });
    const generated = await target.http().get('/api/user/token').set('Authorization', common.accessToken);
    expect(generated.body.success).toBe(true);
    expect(typeof generated.body.data).toBe('string');
    expect(leaks(generated.text, common, true)).toEqual([]);
    common = { ...common, accessToken: generated.body.data };
    const again = await target.http().get('/api/user/self').set('Authorization', common.accessToken);
    expect(again.body.data.access_token).toBe(common.accessToken);
  });

  it('the write routes that answer users (edit, manage, login, self update) carry no secret', async () => {
    const answers = [
      await target.http().put('/api/user/').set('Authorization', root.accessToken).send({ id: common.id, display_name: 'renamed' }),
      await target.http().post('/api/user/manage').set('Authorization', root.accessToken).send({ id: admin.id, action: 'disable' }),
      await target.http().post('/api/user/manage').set('Authorization', root.accessToken).send({ id: admin.id, action: 'enable' }),
      await target.http().put('/api/user/self').set('Authorization', common.accessToken).send({ display_name: 'me' }),
      await target.http().post('/api/user/login').send({ username: 'root', password: root.password }),
      await target.http().post('/api/user/login').send({ username: common.username, password: common.password }),
    ];
    for (const answer of answers) {
      expect(answer.body.success).toBe(true);
      expect(leaks(answer.text, null, false)).toEqual([]);
    }
  });
});
