import Redis from 'ioredis';
import { testRedisPrefix, testRedisUrl } from '#test/support/database';
import type { AppConfig } from '../../config/app-config';
import { RedisKeys } from '../../infrastructure/redis/redis-keys';
import { IDLE_EXPIRY_SECONDS, RateLimiterService } from './rate-limiter.service';

describe('RateLimiterService (sliding log in Redis)', () => {
  let redis: Redis;
  let keys: RedisKeys;
  let limiter: RateLimiterService;
  const rule = { limit: 3, windowSeconds: 10 };
  const t0 = 1_000_000_000_000;

  beforeAll(() => {
    redis = new Redis(testRedisUrl());
    keys = new RedisKeys({ REDIS_PREFIX: testRedisPrefix() } as AppConfig);
    limiter = new RateLimiterService(redis, keys);
  });
  afterAll(async () => {
    const found = await redis.keys(`${keys.prefix}:*`);
    if (found.length) await redis.del(...found);
    await redis.quit();
  });

  it('accepts N requests in a window and refuses the next', async () => {
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await limiter.consume('GA', '10.0.0.1', rule, t0 + i));
    expect(results).toEqual([true, true, true, false]);
  });

  it('accepts again once the oldest request is a window old, sliding one request at a time', async () => {
    const ip = '10.0.0.2';
    for (let i = 0; i < 3; i++) expect(await limiter.consume('GA', ip, rule, t0 + i * 1000)).toBe(true);
    expect(await limiter.consume('GA', ip, rule, t0 + 9_999)).toBe(false);
    expect(await limiter.consume('GA', ip, rule, t0 + 10_000)).toBe(true); // first one aged out
    expect(await limiter.consume('GA', ip, rule, t0 + 10_001)).toBe(false); // the second is only 9 001 ms old
    expect(await limiter.consume('GA', ip, rule, t0 + 11_000)).toBe(true);
  });

  it('does not record refused requests, so hammering does not extend the lock-out', async () => {
    const ip = '10.0.0.3';
    for (let i = 0; i < 3; i++) await limiter.consume('GA', ip, rule, t0);
    for (let i = 1; i <= 50; i++) expect(await limiter.consume('GA', ip, rule, t0 + i * 100)).toBe(false);
    expect(await limiter.consume('GA', ip, rule, t0 + 10_000)).toBe(true);
    expect(await redis.llen(keys.key('rate-limit', 'GA', ip))).toBe(3);
  });

  it('keeps buckets and client IPs apart', async () => {
    for (let i = 0; i < 3; i++) await limiter.consume('CT', '10.0.0.4', rule, t0);
    expect(await limiter.consume('CT', '10.0.0.4', rule, t0)).toBe(false);
    expect(await limiter.consume('GA', '10.0.0.4', rule, t0)).toBe(true);
    expect(await limiter.consume('CT', '10.0.0.5', rule, t0)).toBe(true);
  });

  it('lets a key expire after 20 idle minutes (longer windows keep theirs as long)', async () => {
    await limiter.consume('GA', '10.0.0.6', rule, t0);
    const ttl = await redis.ttl(keys.key('rate-limit', 'GA', '10.0.0.6'));
    expect(ttl).toBeGreaterThan(IDLE_EXPIRY_SECONDS - 5);
    expect(ttl).toBeLessThanOrEqual(IDLE_EXPIRY_SECONDS);
    await limiter.consume('GA', '10.0.0.7', { limit: 3, windowSeconds: 3600 }, t0);
    expect(await redis.ttl(keys.key('rate-limit', 'GA', '10.0.0.7'))).toBeGreaterThan(3500);
  });

  it('uses the Redis clock when no time is given', async () => {
    const ip = '10.0.0.8';
    for (let i = 0; i < 3; i++) expect(await limiter.consume('GA', ip, rule)).toBe(true);
    expect(await limiter.consume('GA', ip, rule)).toBe(false);
    const [newest] = await redis.lrange(keys.key('rate-limit', 'GA', ip), 0, 0);
    expect(Math.abs(Number(newest) - Date.now())).toBeLessThan(5_000);
  });

  it('stays atomic under concurrency: exactly N of many parallel requests pass', async () => {
    const results = await Promise.all(Array.from({ length: 40 }, () => limiter.consume('GA', '10.0.0.9', { limit: 7, windowSeconds: 60 })));
    expect(results.filter(Boolean)).toHaveLength(7);
  });

  it('switches off with a limit of 0', async () => {
    for (let i = 0; i < 5; i++) expect(await limiter.consume('GA', '10.0.0.10', { limit: 0, windowSeconds: 60 })).toBe(true);
    expect(await redis.exists(keys.key('rate-limit', 'GA', '10.0.0.10'))).toBe(0);
  });

  it('lets requests through when Redis cannot be reached rather than failing the whole API', async () => {
    const broken = new Redis({ port: 1, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    const failOpen = new RateLimiterService(broken, keys);
    expect(await failOpen.consume('GA', '10.0.0.11', rule)).toBe(true);
    broken.disconnect();
  });

  it('lets requests through at once while its connection is reconnecting, sending nothing', async () => {
    // The console connection's shape (REDIS_CONSOLE): one retry, reconnects every 200 ms at most.
    const away = new Redis({ port: 1, maxRetriesPerRequest: 1, retryStrategy: (attempt) => Math.min(attempt * 50, 200) });
    away.on('error', () => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(away.status).not.toBe('ready');
    const limiter = new RateLimiterService(away, keys);
    const started = Date.now();
    for (let i = 0; i < 5; i++) expect(await limiter.consume('GA', '10.0.0.12', rule)).toBe(true);
    // Each used to wait for the connection's next attempt (200-400 ms), then fail open.
    expect(Date.now() - started).toBeLessThan(50);
    away.disconnect();
  });
});
