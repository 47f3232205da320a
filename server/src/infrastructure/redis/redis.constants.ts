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
