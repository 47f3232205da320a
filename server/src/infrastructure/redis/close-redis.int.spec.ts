import Redis from 'ioredis';
import { freePort } from '#test/support/private-services';
import { testRedisUrl } from '#test/support/database';
import { closeRedis } from './close-redis';

describe('closeRedis', () => {
  it('disconnects at once a connection whose Redis is away, though commands wait in its queue', async () => {
    const client = new Redis({
      port: await freePort() /* nothing listens there */,
      host: '127.0.0.1',
      maxRetriesPerRequest: null,
      retryStrategy: () => 50,
    });
    client.on('error', () => undefined);
    let attempts = 0;
    client.on('reconnecting', () => attempts++);
    void client.get('k').catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 120)); // a few failed attempts: 'reconnecting'
    expect(client.status).not.toBe('ready');
    expect(attempts).toBeGreaterThan(0);
    // A QUIT here is queued behind the GET and never answered: the old shutdown hung on it.
    const started = Date.now();
    await closeRedis(client);
    expect(Date.now() - started).toBeLessThan(100);
    // No more attempts: nothing keeps the process alive. (ioredis leaves the status at 'reconnecting' and never
    // settles the GET, ioredis#1247; a stopping process does not wait for it.)
    const after = attempts;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(attempts).toBe(after);
  });

  it('lets the commands already issued on a live connection finish, then quits', async () => {
    const client = new Redis(testRedisUrl());
    await client.ping();
    const key = `close-redis-spec:${process.pid}`;
    const written = client.set(key, 'v', 'EX', 60);
    const ended = new Promise((resolve) => client.once('end', resolve));
    await closeRedis(client);
    await expect(written).resolves.toBe('OK');
    await ended;
    const reader = new Redis(testRedisUrl());
    expect(await reader.get(key)).toBe('v');
    await reader.quit();
  });
});
