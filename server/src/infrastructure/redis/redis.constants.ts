export const REDIS = Symbol('REDIS');
/** A second connection for SUBSCRIBE (a subscribed connection cannot run other commands). */
export const REDIS_SUBSCRIBER = Symbol('REDIS_SUBSCRIBER');
/**
 * The console's connection (sessions, rate limits): a command that cannot be answered fails within
 * CONSOLE_REDIS_TIMEOUT_MS instead of waiting in ioredis' offline queue through its reconnects, so with Redis away a
 * console request answers 503 at once and a rate limit fails open at once.
 */
export const REDIS_CONSOLE = Symbol('REDIS_CONSOLE');
export const CONSOLE_REDIS_TIMEOUT_MS = 500;

/**
 * BullMQ's reconnect delay (its own default grows to 20 s): after Redis comes back, the queues and workers are back
 * within a second, and a shutdown does not find a worker's connection in a long backoff (workers/worker-shutdown.ts).
 */
export function bullRetryDelay(attempt: number): number {
  return Math.min(attempt * 100, 1_000);
}
