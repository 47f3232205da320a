import { Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import { REDIS } from '#server/infrastructure/redis/redis.constants';
import { RedisKeys } from '#server/infrastructure/redis/redis-keys';
import { requireRedis, StoreNotReadyError } from '#server/common/http/storage-unavailable';
import type { OutcomeKind, OutcomeWindowCounts } from '../decider/channel-health.decider';

/**
 * Per channel, counts of outcomes in one-second buckets (a Redis hash `t:<sec>` / `f:<sec>`), shared by every
 * worker. One script records an outcome, drops buckets older than the window and returns the window's sums, so
 * concurrent workers never lose a count.
 */
const RECORD = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local count = tonumber(ARGV[5] or '1')
local preceding = tonumber(ARGV[6] or '0')
local counted = 0
if ARGV[3] == '1' then counted = count end
if counted + preceding > 0 then redis.call('HINCRBY', KEYS[1], 't:' .. now, counted + preceding) end
if ARGV[3] == '1' and ARGV[4] == '1' then redis.call('HINCRBY', KEYS[1], 'f:' .. now, count) end
local all = redis.call('HGETALL', KEYS[1])
local total, failures = 0, 0
for i = 1, #all, 2 do
  local field = all[i]
  local second = tonumber(string.sub(field, 3))
  if second <= now - window then
    redis.call('HDEL', KEYS[1], field)
  elseif string.sub(field, 1, 1) == 't' then
    total = total + tonumber(all[i + 1])
  else
    failures = failures + tonumber(all[i + 1])
  end
end
redis.call('EXPIRE', KEYS[1], window + 5)
return {total, failures}
`;

@Injectable()
export class OutcomeWindowStore {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  private key(channelId: number): string {
    return this.keys.key('channel-health', 'window', channelId);
  }

  /**
   * Records one outcome observed at `atMs` (or `count` identical ones: aggregated relay successes) plus
   * `precedingSuccesses` successes observed before it, and returns the window's counts, these included.
   */
  async record(
    channelId: number,
    kind: OutcomeKind,
    atMs: number,
    windowSeconds: number,
    batch: { count?: number; precedingSuccesses?: number } = {},
  ): Promise<OutcomeWindowCounts> {
    const count = Math.max(1, Math.trunc(batch.count ?? 1) || 1);
    const preceding = Math.max(0, Math.trunc(batch.precedingSuccesses ?? 0) || 0);
    const counted = kind !== 'client';
    const failed = kind === 'fatal' || kind === 'transient';
    const [total, failures] = (await requireRedis(this.redis, () =>
      this.redis.eval(
        RECORD,
        1,
        this.key(channelId),
        String(Math.floor(atMs / 1000)),
        String(windowSeconds),
        counted ? '1' : '0',
        failed ? '1' : '0',
        String(count),
        String(preceding),
      ),
    )) as [number, number];
    return { total, failures };
  }

  /** A channel that comes back starts with a clean window: old failures must not disable it again at once. */
  async reset(channelId: number): Promise<void> {
    await requireRedis(this.redis, () => this.redis.del(this.key(channelId)));
  }

  /**
   * Throws StoreNotReadyError while Redis is away: a channel test asks before it calls the upstream, since its outcome
   * could not be counted (the console answers 503, and nothing is tested or recorded).
   */
  ensureReachable(): void {
    if (this.redis.status !== 'ready') throw new StoreNotReadyError('Redis');
  }
}
