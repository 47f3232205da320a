import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/** The run lock's lifetime: longer than any run, renewed by nothing: a dead worker's lock lapses. */
const LOCK_MS = 120_000;
const RELEASE_LOCK = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/**
 * Runs `run` under a Redis lock so that runs of a task poller do not overlap across processes; null (and nothing
 * run) when another run holds it. The lock is only an economy: every task move is still decided against its stream.
 */
export async function withPollLock<T>(redis: Redis, key: string, run: (owner: string) => Promise<T>): Promise<T | null> {
  const owner = randomUUID();
  if ((await redis.set(key, owner, 'PX', LOCK_MS, 'NX')) !== 'OK') return null;
  try {
    return await run(owner);
  } finally {
    await redis.eval(RELEASE_LOCK, 1, key, owner);
  }
}
