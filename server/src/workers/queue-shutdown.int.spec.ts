import { Queue } from 'bullmq';
import { freePort, startPrivateRedis } from '#test/support/private-services';
import { testRedisPrefix, testRedisUrl } from '#test/support/database';
import { queueConnectionReady } from './queue-shutdown';

/** QueueShutdown force-closes only the queues whose Redis is away: a queue whose Redis is up is closed gracefully. */
describe('queueConnectionReady', () => {
  it('is true for a queue connected to a live Redis (its pending adds are then waited for)', async () => {
    const queue = new Queue('queue-shutdown-spec', { connection: { url: testRedisUrl() }, prefix: testRedisPrefix() });
    try {
      await queue.waitUntilReady();
      expect(await queueConnectionReady(queue)).toBe(true);
    } finally {
      await queue.close();
    }
  });

  it('is false for a queue whose Redis is away, at once', async () => {
    const port = await freePort();
    const queue = new Queue('queue-shutdown-spec', { connection: { host: '127.0.0.1', port, retryStrategy: () => 50 } });
    queue.on('error', () => undefined);
    try {
      await new Promise((resolve) => setTimeout(resolve, 150));
      const started = Date.now();
      expect(await queueConnectionReady(queue)).toBe(false);
      expect(Date.now() - started).toBeLessThan(100);
    } finally {
      await queue.getBackend().close(true);
    }
  });

  it('is false for a queue whose Redis is frozen (its status still ready), within the wait given', async () => {
    const redis = await startPrivateRedis();
    const queue = new Queue('queue-shutdown-spec', { connection: { url: redis.url } });
    queue.on('error', () => undefined);
    try {
      await queue.waitUntilReady();
      redis.freeze();
      const started = Date.now();
      // Before, this said true and the graceful close's QUIT waited as long as Redis stayed frozen.
      expect(await queueConnectionReady(queue, 300)).toBe(false);
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      expect(Date.now() - started).toBeLessThan(1_000);
      const closing = Date.now();
      await queue.getBackend().close(true);
      expect(Date.now() - closing).toBeLessThan(1_000);
    } finally {
      redis.thaw();
      await redis.destroy();
    }
  });
});
