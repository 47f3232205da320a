import { Inject, Injectable, Logger } from '@nestjs/common';
import type Redis from 'ioredis';
import { REDIS_CONSOLE } from '../../infrastructure/redis/redis.constants';
import { RedisKeys } from '../../infrastructure/redis/redis-keys';
import { SLIDING_LOG_SCRIPT } from './sliding-log.script';

export interface RateLimitRule {
  /** Requests allowed per window; 0 or less switches the limiter off. */
  limit: number;
  windowSeconds: number;
}

/** Keys of an IP that has been quiet this long disappear (new-api's 20 minutes). */
export const IDLE_EXPIRY_SECONDS = 20 * 60;

type ScriptClient = Redis & { tollgateSlidingLog(key: string, ...args: Array<string | number>): Promise<number> };

/** One sliding log per (bucket, client IP) in Redis; see sliding-log.script.ts for the algorithm. */
@Injectable()
export class RateLimiterService {
  private readonly logger = new Logger(RateLimiterService.name);
  private lastFailureLog = 0;
  /** The connection closed and has not been ready since. */
  private lost: boolean;

  constructor(
    @Inject(REDIS_CONSOLE) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {
    // Closed since its last 'ready' (a first connect still in progress is waited for, as a command would).
    this.lost = ['reconnecting', 'close', 'end'].includes(redis.status);
    redis.on('close', () => (this.lost = true));
    redis.on('ready', () => (this.lost = false));
    if (!('tollgateSlidingLog' in redis)) {
      // defineCommand sends EVALSHA and falls back to EVAL once per connection, so the script is not re-sent per request.
      redis.defineCommand('tollgateSlidingLog', { numberOfKeys: 1, lua: SLIDING_LOG_SCRIPT });
    }
  }

  /**
   * Records the request and answers true when it is within the rule. `nowMs` is for tests; production uses
   * the Redis clock so that replicas with skewed clocks share one timeline.
   */
  async consume(bucket: string, clientIp: string, rule: RateLimitRule, nowMs?: number): Promise<boolean> {
    if (rule.limit <= 0) return true;
    const windowMs = Math.max(1, Math.round(rule.windowSeconds * 1000));
    // A log must outlive its window, or a long window would forget requests after 20 idle minutes.
    const idle = Math.max(IDLE_EXPIRY_SECONDS, Math.ceil(rule.windowSeconds));
    // Connection lost: fail open at once rather than after the connection's next attempt (200-400 ms per request).
    if (this.lost && this.redis.status !== 'ready') return this.failOpen('Redis connection lost, reconnecting');
    try {
      const accepted = await (this.redis as ScriptClient).tollgateSlidingLog(
        this.keys.key('rate-limit', bucket, clientIp),
        rule.limit,
        windowMs,
        idle,
        nowMs === undefined ? '' : Math.floor(nowMs),
      );
      return accepted === 1;
    } catch (error) {
      return this.failOpen(String(error));
    }
  }

  /** Failing open: with Redis down, sessions are down too, and refusing every request would add nothing. */
  private failOpen(reason: string): true {
    const now = Date.now();
    if (now - this.lastFailureLog > 60_000) {
      this.lastFailureLog = now;
      this.logger.error(`rate limiter unavailable, letting requests through: ${reason}`);
    }
    return true;
  }
}
