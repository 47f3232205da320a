import type Redis from 'ioredis';
import { watchLiveness } from '../../infrastructure/redis/redis-liveness';
import { redisOutageLog } from '../../infrastructure/redis/redis-outage-log';
import type { RedisKeys } from '../../infrastructure/redis/redis-keys';
import { COVER, EXPIRE, GROW, RELEASE, RENEW, RENEW_MANY, RESERVE, SET_BASE, SETTLE, SETTLE_MANY, SHRINK } from './quota-scripts';

/** Admission's connection with its Lua scripts defined as commands (see quota-scripts.ts for what each does). */
export type AdmissionCommands = Redis & {
  tgReserve(...args: Array<string | number>): Promise<[number, number, number]>;
  tgSettle(...args: Array<string | number>): Promise<number>;
  tgSettleMany(...args: Array<string | number>): Promise<number>;
  tgRelease(...args: Array<string | number>): Promise<number>;
  tgRenew(...args: Array<string | number>): Promise<number>;
  tgRenewMany(...args: Array<string | number>): Promise<number>;
  tgExpire(numberOfKeys: number, ...args: Array<string | number>): Promise<number>;
  tgSetBase(...args: Array<string | number>): Promise<number>;
  tgGrow(...args: Array<string | number>): Promise<[number, number, number]>;
  tgShrink(...args: Array<string | number>): Promise<number>;
  tgCover(...args: Array<string | number>): Promise<number>;
};

/**
 * Admission's own connection, auto-pipelined: the scripts that concurrent relay requests issue in one turn of the
 * event loop (a reserve and its lease-index ZADD, other requests' settles) leave in one socket write instead of one
 * write each. Every admission command goes through this one connection, so they still run in the order they were
 * issued (the settlement relies on that, see RelaySettlementService).
 */
export function openAdmissionConnection(redis: Redis, unresponsiveMs: number): AdmissionCommands {
  const connection = redis.duplicate({ enableAutoPipelining: true }) as AdmissionCommands;
  redisOutageLog.watch(connection, 'admission');
  watchLiveness(connection, 'admission', unresponsiveMs);
  connection.defineCommand('tgReserve', { numberOfKeys: 8, lua: RESERVE });
  connection.defineCommand('tgSettle', { numberOfKeys: 7, lua: SETTLE });
  connection.defineCommand('tgSettleMany', { numberOfKeys: 7, lua: SETTLE_MANY });
  connection.defineCommand('tgRelease', { numberOfKeys: 7, lua: RELEASE });
  connection.defineCommand('tgRenew', { numberOfKeys: 1, lua: RENEW });
  connection.defineCommand('tgRenewMany', { numberOfKeys: 1, lua: RENEW_MANY });
  connection.defineCommand('tgExpire', { lua: EXPIRE });
  connection.defineCommand('tgSetBase', { numberOfKeys: 2, lua: SET_BASE });
  connection.defineCommand('tgGrow', { numberOfKeys: 8, lua: GROW });
  connection.defineCommand('tgShrink', { numberOfKeys: 3, lua: SHRINK });
  connection.defineCommand('tgCover', { numberOfKeys: 7, lua: COVER });
  return connection;
}

/** Admission's Redis keys. A user's keys share one hash tag, so every script of a user runs on one cluster slot. */
export class AdmissionKeys {
  constructor(private readonly keys: RedisKeys) {}

  private tag(userId: number): string {
    return this.keys.key(`{u:${userId}}`);
  }

  account(userId: number) {
    const tag = this.tag(userId);
    return {
      bal: `${tag}:acct`,
      settled: `${tag}:acct:settled`,
      resv: `${tag}:acct:resv`,
      leases: `${tag}:leases`,
      tokens: `${tag}:tokens`,
    };
  }

  token(userId: number, tokenId: number) {
    const tag = this.tag(userId);
    return { bal: `${tag}:tok:${tokenId}`, settled: `${tag}:tok:${tokenId}:settled`, resv: `${tag}:tok:${tokenId}:resv` };
  }

  /** The seven keys RESERVE, SETTLE, SETTLE_MANY and RELEASE take first. */
  script(userId: number, tokenId: number | null): string[] {
    const account = this.account(userId);
    const token = this.token(userId, tokenId ?? 0);
    return [account.bal, account.settled, account.resv, account.leases, token.bal, token.settled, token.resv];
  }

  /** Users with leases, scored by a lower bound of their earliest lease expiry (the sweeper's index). */
  get leaseUsers(): string {
    return this.keys.key('lease-users');
  }

  /** Users whose expired leases wait for the projections to pass a head position (score), then a base reload. */
  get refreshUsers(): string {
    return this.keys.key('lease-refresh');
  }
}
