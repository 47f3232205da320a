import { EventEmitter } from 'node:events';
import type { AdmissionCommands } from './admission-redis';
import { AdmissionUnavailableError, RedisReadiness } from './redis-readiness';

function connection(status: string): EventEmitter & { status: string } {
  return Object.assign(new EventEmitter(), { status });
}

describe('RedisReadiness', () => {
  it('reads the connection status as ready or not', () => {
    const redis = connection('ready');
    const readiness = new RedisReadiness(redis as unknown as AdmissionCommands, 50);
    expect(readiness.ready).toBe(true);
    redis.status = 'reconnecting';
    expect(readiness.ready).toBe(false);
  });

  it("wakes every waiter at the connection's next 'ready'", async () => {
    const redis = connection('reconnecting');
    const readiness = new RedisReadiness(redis as unknown as AdmissionCommands, 5_000);
    const waits = [readiness.waitReady(), readiness.waitReady()];
    redis.status = 'ready';
    redis.emit('ready');
    await expect(Promise.all(waits)).resolves.toEqual([undefined, undefined]);
  });

  it('refuses with AdmissionUnavailableError once the wait has run out, and a later ready wakes nobody', async () => {
    const redis = connection('reconnecting');
    const readiness = new RedisReadiness(redis as unknown as AdmissionCommands, 20);
    const started = Date.now();
    await expect(readiness.waitReady()).rejects.toBeInstanceOf(AdmissionUnavailableError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(15);
    expect(redis.listenerCount('ready')).toBe(1);
    redis.emit('ready');
  });

  describe('whileReachable', () => {
    const never = () => new Promise<void>(() => undefined);

    it('waits for the work as long as the connection is up, with no timer', async () => {
      const redis = connection('ready');
      const readiness = new RedisReadiness(redis as unknown as AdmissionCommands, 20);
      let finish!: () => void;
      const work = new Promise<void>((resolve) => (finish = resolve));
      const waited = readiness.whileReachable(work, 20);
      await new Promise((resolve) => setTimeout(resolve, 60));
      finish();
      await expect(waited).resolves.toBe(true);
    });

    it('adds one listener per connection however many waits run at once (a projector batch pushes many bases)', async () => {
      const redis = connection('ready');
      const readiness = new RedisReadiness(redis as unknown as AdmissionCommands, 20);
      const finishers: Array<() => void> = [];
      const waits = Array.from({ length: 50 }, () => readiness.whileReachable(new Promise<void>((resolve) => finishers.push(resolve)), 20));
      expect(redis.listenerCount('close')).toBe(1);
      expect(redis.listenerCount('ready')).toBe(2); // the readiness's own, and the waits'
      finishers.forEach((finish) => finish());
      await expect(Promise.all(waits)).resolves.toEqual(Array(50).fill(true));
      expect(redis.listenerCount('close')).toBe(1);
    });

    it('gives up once the connection stayed down for the wait, counted from the first of its failed attempts', async () => {
      const redis = connection('ready');
      const readiness = new RedisReadiness(redis as unknown as AdmissionCommands, 5_000);
      const started = Date.now();
      const waited = readiness.whileReachable(never(), 80);
      redis.status = 'reconnecting';
      redis.emit('close');
      // Each failed reconnect attempt closes again: the wait is not restarted by them.
      const attempts = setInterval(() => redis.emit('close'), 10);
      await expect(waited).resolves.toBe(false);
      clearInterval(attempts);
      expect(Date.now() - started).toBeGreaterThanOrEqual(75);
      expect(Date.now() - started).toBeLessThan(1_000);
    });

    it('starts the wait at once when the connection is already down, and stops it when it is back', async () => {
      const redis = connection('reconnecting');
      const readiness = new RedisReadiness(redis as unknown as AdmissionCommands, 5_000);
      let finish!: () => void;
      const work = new Promise<void>((resolve) => (finish = resolve));
      const waited = readiness.whileReachable(work, 50);
      await new Promise((resolve) => setTimeout(resolve, 20));
      redis.status = 'ready';
      redis.emit('ready');
      await new Promise((resolve) => setTimeout(resolve, 80)); // past the wait: it was stopped
      finish();
      await expect(waited).resolves.toBe(true);
    });

    it('counts work that failed as settled', async () => {
      const readiness = new RedisReadiness(connection('ready') as unknown as AdmissionCommands, 20);
      await expect(readiness.whileReachable(Promise.reject(new Error('NOSCRIPT')))).resolves.toBe(true);
    });
  });
});
