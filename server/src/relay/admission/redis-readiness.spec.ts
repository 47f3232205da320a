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
});
