import { STORAGE_UNAVAILABLE_MESSAGE } from '#server/common/http/storage-unavailable';
import { type PrivateRedisApp, startPrivateRedisApp } from './private-redis-app';
import { call, dataSource, rootCaller } from './users-support';

jest.setTimeout(120_000);

/**
 * The admin's channel tests and balance refreshes while Redis is away. They queue BullMQ jobs (test all, refresh
 * all) or count a test's outcome in Redis (test one), and the commands waited in ioredis's queue for as long as Redis
 * was gone: none of the three requests answered (found by calling every console GET route with Redis killed). Now
 * each answers the console's 503 at once, having tested, queued and recorded nothing; with Redis back they work.
 */
describe('channel tests and balance refreshes while Redis is away', () => {
  let app: PrivateRedisApp;

  beforeAll(async () => {
    app = await startPrivateRedisApp({});
  });
  afterAll(async () => {
    await app?.redis.start();
    await app?.target.close();
    await app?.release();
  });

  const channelEvents = async () =>
    Number((await dataSource(app.target).query(`SELECT count(*) AS n FROM events WHERE stream_id LIKE 'channel-%'`))[0].n);

  it('answers 503 at once with nothing tested, queued or recorded, and works again once Redis is back', async () => {
    const root = await rootCaller(app.target);
    const [channel] = (await call(app.target, root, 'get', '/api/channel/?p=0&page_size=10').expect(200)).body.data.items ?? [];
    const channelId = channel?.id ?? 1;
    const before = await channelEvents();
    expect(app.upstream.requests.length).toBe(0);

    await app.redis.kill();
    for (const path of [`/api/channel/test/${channelId}`, '/api/channel/test', '/api/channel/update_balance']) {
      const started = Date.now();
      const answer = await call(app.target, root, 'get', path).timeout(10_000);
      expect({ path, status: answer.status, body: answer.body }).toEqual({
        path,
        status: 503,
        body: { success: false, message: STORAGE_UNAVAILABLE_MESSAGE },
      });
      expect(Date.now() - started).toBeLessThan(2_000);
    }
    expect(await channelEvents()).toBe(before);
    expect(app.upstream.requests.length).toBe(0); // the channel was not called

    await app.redis.start();
    let tested: { status: number; body: { success: boolean } } | null = null;
    for (let i = 0; i < 50; i++) {
      tested = await call(app.target, root, 'get', `/api/channel/test/${channelId}`);
      if (tested.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(tested?.status).toBe(200);
    expect(tested?.body.success).toBe(true);
    expect(await channelEvents()).toBeGreaterThan(before);
  });
});
