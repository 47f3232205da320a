import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type Redis from 'ioredis';
import { StoreNotReadyError } from '#server/common/http/storage-unavailable';
import { REDIS } from '#server/infrastructure/redis/redis.constants';
import { RedisKeys } from '#server/infrastructure/redis/redis-keys';

/** new-api's purposes: "v" email verification (register, email bind), "r" password reset. */
export type VerificationPurpose = 'v' | 'r';

/** Codes and reset links are valid for 10 minutes, as in new-api. */
export const VERIFICATION_TTL_SECONDS = 600;
/** Ours: wrong guesses a code survives before it is dropped (new-api allowed unlimited guessing). */
export const VERIFICATION_MAX_ATTEMPTS = 5;

/**
 * Returns 1 when the code matches (deleting it when ARGV[2] is "consume"), 0 otherwise; a wrong guess is
 * counted and the code dropped at the limit. One script, so two requests racing for one code cannot both win.
 */
const CHECK_SCRIPT = `
local stored = redis.call('HGET', KEYS[1], 'code')
if not stored then return 0 end
if stored == ARGV[1] then
  if ARGV[2] == 'consume' then redis.call('DEL', KEYS[1]) end
  return 1
end
local attempts = redis.call('HINCRBY', KEYS[1], 'attempts', 1)
if attempts >= tonumber(ARGV[3]) then redis.call('DEL', KEYS[1]) end
return 0`;

/** 6 hex characters, like new-api's first 6 of a UUID. */
export const newVerificationCode = () => randomBytes(3).toString('hex');
/** 32 hex characters, like new-api's dash-less UUID. */
export const newResetToken = () => randomBytes(16).toString('hex');

/**
 * Email codes and reset tokens, in Redis rather than process memory so any api replica can check a code
 * another one sent. One live code per purpose and address; a new request replaces the old code.
 */
@Injectable()
export class VerificationCodeStore {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  private key(purpose: VerificationPurpose, email: string): string {
    return this.keys.key('verification', purpose, email);
  }

  /**
   * With Redis away, a code can be neither kept nor checked: the request answers 503 at once. (Its command used to wait
   * in the connection's queue for as long as Redis was gone, and an unauthenticated request with it.)
   */
  private assertReady(): void {
    if (this.redis.status !== 'ready') throw new StoreNotReadyError('Redis');
  }

  async issue(purpose: VerificationPurpose, email: string, code: string): Promise<void> {
    this.assertReady();
    const key = this.key(purpose, email);
    await this.redis.multi().del(key).hset(key, 'code', code).expire(key, VERIFICATION_TTL_SECONDS).exec();
  }

  /** Checks without using the code up (the caller still has checks to make before it acts). */
  async check(purpose: VerificationPurpose, email: string, code: string): Promise<boolean> {
    return this.run(purpose, email, code, 'check');
  }

  /** Checks and uses the code up, atomically: true for exactly one caller. */
  async consume(purpose: VerificationPurpose, email: string, code: string): Promise<boolean> {
    return this.run(purpose, email, code, 'consume');
  }

  private async run(purpose: VerificationPurpose, email: string, code: string, mode: 'check' | 'consume'): Promise<boolean> {
    if (!email || !code) return false;
    this.assertReady();
    const result = await this.redis.eval(CHECK_SCRIPT, 1, this.key(purpose, email), code, mode, VERIFICATION_MAX_ATTEMPTS);
    return result === 1;
  }
}
