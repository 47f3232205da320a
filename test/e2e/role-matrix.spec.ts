import { DataSource } from 'typeorm';
import { createTestApp, type TestApp } from '../support/app';
import { concretePath, discoverRoutes, type DiscoveredRoute } from '../support/routes';
import { seedUser, type SeededUser } from '../support/users';

/**
 * Every route guarded by @UserAuth/@AdminAuth/@RootAuth, found by reflection (so a route added later is covered
 * without editing this file), refuses callers below its role: anonymous callers get HTTP 401, a logged-in caller
 * with too low a role gets HTTP 200 `{success:false, message:"无权进行此操作，权限不足"}` (new-api's shape),
 * and nothing in the database changes.
 */
describe('role matrix', () => {
  let target: TestApp;
  let routes: DiscoveredRoute[];
  let common: SeededUser;
  let admin: SeededUser;
  let disabledAdmin: SeededUser;

  beforeAll(async () => {
    target = await createTestApp();
    routes = discoverRoutes(target.app).filter((route) => route.minRole !== undefined);
    const dataSource = target.app.get(DataSource);
    common = await seedUser(dataSource, { role: 1 });
    admin = await seedUser(dataSource, { role: 10 });
    disabledAdmin = await seedUser(dataSource, { role: 100, status: 2 });
  });
  afterAll(async () => {
    await target.close();
  });

  async function snapshot(): Promise<string> {
    const dataSource = target.app.get(DataSource);
    const tables: Array<{ table_name: string }> = await dataSource.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name NOT IN ('migrations', 'projection_checkpoints') ORDER BY 1`,
    );
    const parts: string[] = [];
    for (const { table_name } of tables) {
      const rows = await dataSource.query(`SELECT * FROM "${table_name}" ORDER BY 1`);
      parts.push(`${table_name}:${JSON.stringify(rows)}`);
    }
    return parts.join('\n');
  }

  function call(route: DiscoveredRoute, token?: string) {
    const agent = target.http();
    const path = concretePath(route.path);
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete' | 'patch';
    let pending = agent[method](path);
    if (token) pending = pending.set('Authorization', token);
    if (method !== 'get' && method !== 'delete') pending = pending.send({ id: 1, key: 'SystemName', value: 'x', quota: 1 });
    return pending;
  }

  it('finds the guarded routes, admin and root ones among them', () => {
    expect(routes.some((route) => route.minRole === 10)).toBe(true);
    expect(routes.some((route) => route.minRole === 100)).toBe(true);
  });

  it('refuses anonymous callers with 401 on every guarded route', async () => {
    for (const route of routes) {
      const response = await call(route);
      expect({ route: `${route.method} ${route.path}`, status: response.status, body: response.body }).toEqual({
        route: `${route.method} ${route.path}`,
        status: 401,
        body: { success: false, message: '无权进行此操作，未登录且未提供 access token' },
      });
    }
  });

  it('refuses callers below the route role with HTTP 200 and changes nothing', async () => {
    const before = await snapshot();
    for (const route of routes) {
      const callers = route.minRole === 100 ? [common, admin] : route.minRole === 10 ? [common] : [];
      for (const caller of callers) {
        const response = await call(route, caller.accessToken);
        expect({ route: `${route.method} ${route.path}`, caller: caller.username, status: response.status, body: response.body }).toEqual({
          route: `${route.method} ${route.path}`,
          caller: caller.username,
          status: 200,
          body: { success: false, message: '无权进行此操作，权限不足' },
        });
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a disabled user on every guarded route, whatever the role', async () => {
    for (const route of routes) {
      const response = await call(route, disabledAdmin.accessToken);
      expect({ route: `${route.method} ${route.path}`, body: response.body }).toEqual({
        route: `${route.method} ${route.path}`,
        body: { success: false, message: '用户已被封禁' },
      });
    }
  });
});
