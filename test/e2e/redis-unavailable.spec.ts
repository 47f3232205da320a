import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { createTestApp, type TestApp } from '../support/app';
import { seedUser, type SeededUser } from '../support/users';
import { dataSource } from './users-support';

/**
 * With Redis away, a console request that needs it (a session) fails within a second with 503 `{success:false,
 * message}`, instead of waiting through ioredis' reconnects; a route that needs no session (status) still answers,
 * its rate limit failing open at once. The app runs on a private redis-server of its own, killed and restarted
 * here, so the Redis other test files share is never touched.
 */
describe('console routes while Redis is away', () => {
  let target: TestApp;
  let redis: ChildProcess;
  let port: number;
  let user: SeededUser;
  const dir = mkdtempSync(join(tmpdir(), 'tg-redis-'));

  const freePort = () =>
    new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });

  async function startRedis(): Promise<void> {
    redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: 'ignore',
    });
    const probe = new Redis({ port, lazyConnect: true, retryStrategy: () => 50, maxRetriesPerRequest: null });
    for (let attempt = 0; attempt < 100; attempt++) {
      if ((await probe.ping().catch(() => null)) === 'PONG') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    probe.disconnect();
  }

  async function stopRedis(): Promise<void> {
    const exited = new Promise((resolve) => redis.once('exit', resolve));
    redis.kill('SIGKILL');
    await exited;
  }

  beforeAll(async () => {
    port = await freePort();
    await startRedis();
    target = await createTestApp({ roles: ['api'], redisUrl: `redis://127.0.0.1:${port}` });
    user = await seedUser(dataSource(target), { role: 1 });
  });
  afterAll(async () => {
    if (redis.exitCode !== null || redis.signalCode !== null) await startRedis();
    await target.close();
    await stopRedis();
  });

  it('answers 503 within a second for a session, serves the status route, and serves sessions again once it is back', async () => {
    const agent = target.http();
    const login = await agent.post('/api/user/login').send({ username: user.username, password: user.password });
    expect(login.body.success).toBe(true);
    const self = () => agent.get('/api/user/self').set('New-Api-User', String(user.id));
    expect((await self()).body).toMatchObject({ success: true, data: { id: user.id } });

    await stopRedis();
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
    await startRedis();
    let again = await agent.post('/api/user/login').send({ username: user.username, password: user.password });
    for (let attempt = 0; attempt < 40 && !again.body.success; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      again = await agent.post('/api/user/login').send({ username: user.username, password: user.password });
    }
    expect(again.body.success).toBe(true);
    expect((await self()).body).toMatchObject({ success: true, data: { id: user.id } });
  });
});
