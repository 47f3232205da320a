import { Client } from 'pg';
import { createTestApp, type TestApp } from '../support/app';
import { seedUser, type SeededUser } from '../support/users';
import { dataSource } from './users-support';

/**
 * With Postgres closed to the app, console routes answer 503 `{success:false, message}` at once ("try again"),
 * not 500 "Panic detected"; once Postgres is back they answer as before, with no manual step. The app's own database
 * is closed to new connections and its open ones are ended, which is what a stopped or restarting server looks like
 * to the app, without touching the Postgres that other test files share.
 */
describe('console routes while Postgres is away', () => {
  let target: TestApp;
  let user: SeededUser;
  let admin: Client;

  beforeAll(async () => {
    target = await createTestApp({ roles: ['api'] });
    user = await seedUser(dataSource(target), { role: 1 });
    admin = new Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.query(`ALTER DATABASE "${target.database.name}" ALLOW_CONNECTIONS true`);
    await admin.end();
    await target.close();
  });

  async function closeDatabase(): Promise<void> {
    await admin.query(`ALTER DATABASE "${target.database.name}" ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [
      target.database.name,
    ]);
  }

  it('answers 503 with a clear message while it is away, and as before once it is back', async () => {
    const self = () => target.http().get('/api/user/self').set('Authorization', user.accessToken);
    expect((await self()).body).toMatchObject({ success: true, data: { id: user.id } });

    await closeDatabase();
    const started = Date.now();
    const away = await self();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(away.status).toBe(503);
    expect(away.body).toEqual({ success: false, message: '服务暂时不可用：数据库或缓存无法连接，请稍后重试' });

    await admin.query(`ALTER DATABASE "${target.database.name}" ALLOW_CONNECTIONS true`);
    let back = await self();
    for (let attempt = 0; attempt < 20 && back.status !== 200; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      back = await self();
    }
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ success: true, data: { id: user.id } });
  });
});
