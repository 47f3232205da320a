import { createHash } from 'node:crypto';
import type { BlockList } from 'node:net';
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { CacheInvalidationService, REDIS_PUBLISH_WAIT_MS } from '#server/infrastructure/redis/cache-invalidation.service';
import { REDIS } from '#server/infrastructure/redis/redis.constants';
import { RedisKeys } from '#server/infrastructure/redis/redis-keys';
import { whileReachable } from '#server/infrastructure/redis/redis-reachable';
import { USER_CHANGED_TOPIC } from '../../users/users.topics';
import { TOKENS_CHANGED_TOPIC } from '../tokens.topics';
import { buildAllowList } from './allowed-ips';
import { LruCache } from './lru-cache';

/** The configuration of a token the relay needs (its money is admission's, never cached here). */
export interface TokenRecord {
  id: number;
  userId: number;
  key: string;
  status: number;
  name: string;
  expiredTime: number;
  unlimitedQuota: boolean;
  modelLimitsEnabled: boolean;
  modelLimits: string;
  allowIps: string | null;
  group: string;
}

/** A token record with its lists parsed once per process, not once per request. */
export interface CachedToken extends TokenRecord {
  /** The models the token may call; null when model limits are off. An empty set allows nothing. */
  modelSet: ReadonlySet<string> | null;
  /** null: any client address. */
  allowList: BlockList | null;
}

export interface UserRecord {
  id: number;
  username: string;
  group: string;
  role: number;
  status: number;
  deleted: boolean;
}

const MAX_ENTRIES = 10_000;
/** A safety net only: every change is pushed through CacheInvalidationService at once. */
const TTL_SECONDS = 60;
/** Unknown keys are remembered briefly, so a client hammering a wrong key costs no query per request. */
const UNKNOWN_KEY_TTL_MS = 10_000;
/** Generations outlive any fill in flight by far; they only need to exist while entries might be refilled. */
const GENERATION_TTL_SECONDS = 86_400;

/**
 * Stores the entry only if no invalidation happened since the filler read the generation (KEYS: entry,
 * generation; ARGV: generation seen ('' for none), value, ttl). Without it, a fill that read the database just
 * before a change committed could write the old row after the invalidation deleted it.
 */
const FILL_IF_CURRENT = `
local g = redis.call('GET', KEYS[2])
if (g or '') == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
  return 1
end
return 0
`;

interface TokenRow {
  id: number;
  user_id: number;
  key: string;
  status: number;
  name: string;
  expired_time: string;
  unlimited_quota: boolean;
  model_limits_enabled: boolean;
  model_limits: string;
  allow_ips: string | null;
  group: string;
}

interface UserRow {
  id: number;
  username: string;
  group: string;
  role: number;
  status: number;
  deleted_at: Date | null;
}

type FillCommands = Redis & {
  tgFillIfCurrent(entry: string, generation: string, seen: string, value: string, ttl: number): Promise<number>;
};

/** Model limits as new-api stores them: a comma list. Blanks around names are not part of a name. */
export function parseModelLimits(text: string): Set<string> {
  return new Set(
    text
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean),
  );
}

function prepare(record: TokenRecord): CachedToken {
  return {
    ...record,
    modelSet: record.modelLimitsEnabled ? parseModelLimits(record.modelLimits) : null,
    allowList: buildAllowList(record.allowIps),
  };
}

/**
 * The relay's token and user lookups: an in-process LRU in front of a Redis copy in front of Postgres, so the
 * common case (a key used again within a minute) makes no database round trip and no Redis round trip either.
 *
 * Invalidation: a token command calls `tokenChanged` after its write commits (drops the Redis copy, bumps its
 * generation, publishes TOKENS_CHANGED_TOPIC so every process drops its local copy); a user change arrives on
 * USER_CHANGED_TOPIC (published by the users module) and is handled the same way by every process.
 */
@Injectable()
export class TokenAuthCache implements OnModuleInit {
  private readonly logger = new Logger(TokenAuthCache.name);
  private readonly tokens = new LruCache<string, CachedToken>(MAX_ENTRIES, TTL_SECONDS * 1000);
  private readonly unknownKeys = new LruCache<string, true>(MAX_ENTRIES, UNKNOWN_KEY_TTL_MS);
  private readonly users = new LruCache<number, UserRecord>(MAX_ENTRIES, TTL_SECONDS * 1000);
  /** Bumped by every local invalidation: a local fill that started before one does not store what it read. */
  private invalidations = 0;
  private readonly redis: FillCommands;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(REDIS) redis: Redis,
    private readonly keys: RedisKeys,
    private readonly invalidation: CacheInvalidationService,
  ) {
    this.redis = redis as FillCommands;
    this.redis.defineCommand('tgFillIfCurrent', { numberOfKeys: 2, lua: FILL_IF_CURRENT });
  }

  async onModuleInit(): Promise<void> {
    await this.invalidation.on(TOKENS_CHANGED_TOPIC, (message) => this.dropTokenLocally(Number(message)));
    await this.invalidation.on(USER_CHANGED_TOPIC, (message) => {
      const userId = Number(message);
      if (!Number.isSafeInteger(userId)) return;
      this.dropUserLocally(userId);
      // Every process does this; deleting twice is harmless and no process has to be the one that knows.
      this.invalidateShared(this.userKey(userId), this.userGenerationKey(userId)).catch((error: unknown) =>
        this.logger.warn(`user ${userId}: shared cache not invalidated: ${String(error)}`),
      );
    });
  }

  /** The token of this process's own cache, without a promise (undefined: not cached here; ask token()). */
  localToken(key: string): CachedToken | undefined {
    return this.tokens.get(key);
  }

  /** The user of this process's own cache, without a promise (undefined: not cached here; ask user()). */
  localUser(id: number): UserRecord | undefined {
    return this.users.get(id);
  }

  /** The live token with this key (not soft-deleted), or null. */
  async token(key: string): Promise<CachedToken | null> {
    const local = this.tokens.get(key);
    if (local) return local;
    if (this.unknownKeys.get(key)) return null;
    const startedAt = this.invalidations;
    const hash = this.hashKey(key);
    const entryKey = this.keys.key('relay', 'token', hash);
    const generationKey = this.keys.key('relay', 'token-gen', hash);
    const shared = await this.sharedCopy(entryKey, generationKey);
    // Redis away: Postgres answers (the Redis copy is only a cache), rather than waiting in ioredis's offline queue
    // with no bound; nothing is kept, so the usual path resumes once Redis is back.
    if (!shared) {
      const row = await this.loadToken(key);
      return row ? prepare(row) : null;
    }
    const [cached, generation] = shared;
    let record: TokenRecord | null;
    let kept = true;
    if (cached) {
      record = JSON.parse(cached) as TokenRecord;
    } else {
      record = await this.loadToken(key);
      if (record) kept = await this.fill(entryKey, generationKey, generation, record);
    }
    if (!kept || startedAt !== this.invalidations) return record ? prepare(record) : null;
    if (!record) {
      this.unknownKeys.set(key, true);
      return null;
    }
    const prepared = prepare(record);
    this.tokens.set(key, prepared);
    return prepared;
  }

  /** The user (soft-deleted ones too, flagged), or null when there is no such row. */
  async user(id: number): Promise<UserRecord | null> {
    const local = this.users.get(id);
    if (local) return local;
    const startedAt = this.invalidations;
    const entryKey = this.userKey(id);
    const generationKey = this.userGenerationKey(id);
    const shared = await this.sharedCopy(entryKey, generationKey);
    if (!shared) return this.loadUser(id); // Redis away: as in token()
    const [cached, generation] = shared;
    let record: UserRecord | null;
    let kept = true;
    if (cached) {
      record = JSON.parse(cached) as UserRecord;
    } else {
      record = await this.loadUser(id);
      if (record) kept = await this.fill(entryKey, generationKey, generation, record);
    }
    if (record && kept && startedAt === this.invalidations) this.users.set(id, record);
    return record;
  }

  /**
   * The shared copy and its generation (MGET), or null when Redis is away: the connection is down, or went down while
   * the read waited (a frozen Redis is dropped by its liveness watch, REDIS_UNRESPONSIVE_MS), for REDIS_PUBLISH_WAIT_MS.
   * Before, a read sent to a Redis that stopped answering waited as long as it was frozen, and the relay request with it.
   */
  private async sharedCopy(entryKey: string, generationKey: string): Promise<Array<string | null> | null> {
    if (this.redis.status !== 'ready') return null;
    const read = this.redis.mget(entryKey, generationKey);
    return (await whileReachable(this.redis, read, REDIS_PUBLISH_WAIT_MS)) ? read : null;
  }

  /** Stores the row for the other processes (FILL_IF_CURRENT); false when Redis went away meanwhile (see sharedCopy). */
  private async fill(
    entryKey: string,
    generationKey: string,
    generation: string | null,
    record: TokenRecord | UserRecord,
  ): Promise<boolean> {
    const filled = this.redis.tgFillIfCurrent(entryKey, generationKey, generation ?? '', JSON.stringify(record), TTL_SECONDS);
    if (!(await whileReachable(this.redis, filled, REDIS_PUBLISH_WAIT_MS))) return false;
    await filled;
    return true;
  }

  /**
   * A token's row changed (edit, status, delete, lapse) and the write has committed: no process may go on
   * authenticating with the old row.
   */
  async tokenChanged(token: { id: number; key: string }): Promise<void> {
    this.dropTokenLocally(token.id);
    this.unknownKeys.delete(token.key);
    const hash = this.hashKey(token.key);
    const shared = this.invalidateShared(this.keys.key('relay', 'token', hash), this.keys.key('relay', 'token-gen', hash));
    if (this.redis.status === 'ready' && (await whileReachable(this.redis, shared, REDIS_PUBLISH_WAIT_MS))) await shared;
    else {
      // Redis away: the write has committed and its request must not wait for Redis (it used to wait as long as Redis
      // was gone). While this connection is down this process reads tokens from Postgres; the MULTI goes out first
      // thing when it is back (ioredis keeps it), and a copy it never reaches (this process stopped first) lapses
      // within TTL_SECONDS.
      shared.catch((error: unknown) => this.logger.warn(`token ${token.id}: shared cache not invalidated: ${String(error)}`));
    }
    await this.invalidation.publish(TOKENS_CHANGED_TOPIC, String(token.id));
  }

  /** Forgets this process's copies (tests use it to play a freshly started process). */
  clearLocal(): void {
    this.invalidations++;
    this.tokens.clear();
    this.unknownKeys.clear();
    this.users.clear();
  }

  private dropTokenLocally(tokenId: number): void {
    this.invalidations++;
    this.tokens.deleteWhere((token) => token.id === tokenId);
  }

  private dropUserLocally(userId: number): void {
    this.invalidations++;
    this.users.delete(userId);
  }

  private async invalidateShared(entryKey: string, generationKey: string): Promise<void> {
    await this.redis.multi().incr(generationKey).expire(generationKey, GENERATION_TTL_SECONDS).del(entryKey).exec();
  }

  /** Keys are secrets: Redis holds only their hash. */
  private hashKey(key: string): string {
    return createHash('sha256').update(key).digest('hex');
  }

  private userKey(id: number): string {
    return this.keys.key('relay', 'user', id);
  }

  private userGenerationKey(id: number): string {
    return this.keys.key('relay', 'user-gen', id);
  }

  private async loadToken(key: string): Promise<TokenRecord | null> {
    const rows: TokenRow[] = await this.dataSource.query(
      `SELECT id, user_id, key, status, name, expired_time, unlimited_quota, model_limits_enabled, model_limits, allow_ips, "group"
         FROM tokens WHERE key = $1 AND deleted_at IS NULL`,
      [key],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      id: row.id,
      userId: row.user_id,
      key: row.key,
      status: row.status,
      name: row.name,
      expiredTime: Number(row.expired_time),
      unlimitedQuota: row.unlimited_quota,
      modelLimitsEnabled: row.model_limits_enabled,
      modelLimits: row.model_limits,
      allowIps: row.allow_ips,
      group: row.group,
    };
  }

  private async loadUser(id: number): Promise<UserRecord | null> {
    const rows: UserRow[] = await this.dataSource.query('SELECT id, username, "group", role, status, deleted_at FROM users WHERE id = $1', [
      id,
    ]);
    const row = rows[0];
    if (!row) return null;
    return { id: row.id, username: row.username, group: row.group, role: row.role, status: row.status, deleted: row.deleted_at !== null };
  }
}
