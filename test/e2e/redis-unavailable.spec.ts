import { createTestApp, type TestApp } from '../support/app';
import { type PrivateRedis, startPrivateRedis } from '../support/private-services';
import { seedUser, type SeededUser } from '../support/users';
import { call, dataSource, rootCaller, setOptions } from './users-support';

/**
 * With Redis away, a console request that needs it (a session) fails within a second with 503 `{success:false,
 * message}`, instead of waiting through ioredis' reconnects; a route that needs no session (status) still answers,
 * its rate limit failing open at once. The app runs on a private redis-server of its own, killed and restarted
 * here, so the Redis other test files share is never touched.
 */
describe('console routes while Redis is away', () => {
  let target: TestApp;
  let redis: PrivateRedis;
  let user: SeededUser;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    target = await createTestApp({ roles: ['api'], redisUrl: redis.url });
    user = await seedUser(dataSource(target), { role: 1 });
  });
  afterAll(async () => {
    await redis.start(); // the app closes its connections cleanly against a live server
    await target?.close();
    await redis.destroy();
  });

  it('answers 503 within a second for a session, serves the status route, and serves sessions again once it is back', async () => {
    const agent = target.http();
    const login = await agent.post('/api/user/login').send({ username: user.username, password: user.password });
    expect(login.body.success).toBe(true);
    const self = () => agent.get('/api/user/self').set('New-Api-User', String(user.id));
    expect((await self()).body).toMatchObject({ success: true, data: { id: user.id } });

    await redis.kill();
    const started = Date.now();
    const away = await self();
    const elapsed = Date.now() - started;
    expect(away.status).toBe(503);
    expect(away.body).toEqual({ success: false, message: '服务暂时不可用：数据库或缓存无法连接，请稍后重试' });
    expect(elapsed).toBeLessThan(1000);

    const status = await target.http().get('/api/status');
    expect(status.status).toBe(200);
    expect(status.body.success).toBe(true);

    // Back: sessions lived in the Redis that went away, so the caller logs in again, with no restart of the app.
    await redis.start();
    let again = await agent.post('/api/user/login').send({ username: user.username, password: user.password });
    for (let attempt = 0; attempt < 40 && !again.body.success; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      again = await agent.post('/api/user/login').send({ username: user.username, password: user.password });
    }
    expect(again.body.success).toBe(true);
    expect((await self()).body).toMatchObject({ success: true, data: { id: user.id } });
  });

  it('answers an admin write made with an access token while Redis is away, and this process sees it at once', async () => {
    const root = await rootCaller(target);
    const victim = await seedUser(dataSource(target), { role: 1 });
    await redis.kill();
    try {
      // The writes commit in Postgres and the ledger; their cache invalidation used to wait for Redis as long as it was
      // gone, and the request with it (it never answered).
      const started = Date.now();
      const option = await call(target, root, 'put', '/api/option/', { key: 'SystemName', value: 'Outage Gate' }).timeout(10_000);
      expect(option.body).toEqual({ success: true, message: '' });
      const disabled = await call(target, root, 'post', '/api/user/manage', { id: victim.id, action: 'disable' }).timeout(10_000);
      expect(disabled.body).toMatchObject({ success: true, message: '' });
      // Without waiting for Redis's connection attempts either (the rate limit fails open at once).
      expect(Date.now() - started).toBeLessThan(2_000);
      // This process's caches were told without Redis: the status route shows the new name, the user is disabled.
      expect((await target.http().get('/api/status')).body.data.system_name).toBe('Outage Gate');
      expect((await call(target, root, 'get', `/api/user/${victim.id}`)).body.data.status).toBe(2);
    } finally {
      await redis.start();
    }
  });

  it('answers 503 at once for an email code while Redis is away, instead of holding the request until it is back', async () => {
    // Configured (never reached here): the code would be kept in Redis, then mailed.
    await setOptions(target, { SMTPServer: '127.0.0.1', SMTPPort: '2525', SMTPAccount: 'mailer@tollgate.test', SMTPToken: 'secret' });
    await dataSource(target).query(`UPDATE users SET email = 'someone@gmail.com' WHERE id = $1`, [user.id]);
    await redis.kill();
    try {
      const started = Date.now();
      const code = await target.http().get('/api/verification').query({ email: 'newcomer@gmail.com' }).timeout(10_000);
      expect(code.status).toBe(503);
      expect(code.body).toEqual({ success: false, message: '服务暂时不可用：数据库或缓存无法连接，请稍后重试' });
      // A password reset for a registered address: the same.
      const reset = await target.http().get('/api/reset_password').query({ email: 'someone@gmail.com' }).timeout(10_000);
      expect({ status: reset.status, body: reset.body }).toEqual({ status: 503, body: code.body });
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      await redis.start();
    }
  });
});
