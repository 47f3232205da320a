import { Inject, Injectable, type OnModuleDestroy, Optional } from '@nestjs/common';
import type Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { EVENT_STORE, type EventStore } from '../../ledger/event-store.port';
import { REDIS } from '../../infrastructure/redis/redis.constants';
import type { QuotaAdmission } from '../../modules/accounts';
import { RedisKeys } from '../../infrastructure/redis/redis-keys';
import { randomBytes } from 'node:crypto';
import { LeaseRenewer } from '../leases/lease-renewer';
import { EXPIRE, GROW, RELEASE, RENEW, RENEW_MANY, RESERVE, SET_BASE, SETTLE, SETTLE_MANY, SHRINK } from './quota-scripts';
import { type BlockStore, DEFAULT_BLOCK_OPTIONS, type QuotaBlock, QuotaBlocks } from './quota-blocks';

export interface ReservationRequest {
  requestId: string;
  userId: number;
  /** null: no token limit applies (unlimited token, playground). */
  tokenId: number | null;
  amount: number;
  /** How long the reservation survives if this process dies without settling or releasing it. */
  leaseMs: number;
}

/** Which reservation admitted a request: its own in Redis, or a share of this process's quota block. */
export interface AdmittedBy {
  id: string;
  kind: 'request' | 'block';
}

export type ReservationResult =
  | { ok: true; userAvailable: number; tokenAvailable: number | null; reservation: AdmittedBy }
  | { ok: false; reason: 'user' | 'token'; userAvailable: number; tokenAvailable: number | null };

export interface SettlementRequest {
  requestId: string;
  userId: number;
  tokenId: number | null;
  /** The charge, as appended in QuotaConsumed. */
  amount: number;
  /** Ledger position of that QuotaConsumed event. */
  position: number;
}

/** A charge in the ledger at `position`, to settle against the reservation that admitted it. */
export interface ShippedCharge {
  reservation: string;
  requestId: string;
  amount: number;
  position: number;
  kind: 'request' | 'block';
}

/** Where the bases come from: the projection table and the checkpoint its rows are valid at. */
export const BALANCE_SOURCES = {
  account: { projection: 'account-balances', sql: 'SELECT quota AS balance FROM account_balances WHERE user_id = $1' },
  token: { projection: 'token-balances', sql: 'SELECT remain_quota AS balance FROM token_balances WHERE token_id = $1' },
} as const;

type Commands = Redis & {
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
};

/** A reservation's lease (RELAY_LEASE_MS, default 60 s): how long a dead process's quota stays held; renewed at a third. */
export const LEASE_MS = Math.max(1_000, Number(process.env.RELAY_LEASE_MS) || 60_000);

export const QUOTA_ADMISSION_OPTIONS = Symbol('QUOTA_ADMISSION_OPTIONS');

export interface QuotaAdmissionOptions {
  /** false: every request reserves in Redis on its own (default: RELAY_QUOTA_BLOCKS). */
  blocks?: boolean;
  /** The lease of blocks and of renewals made through admission (default LEASE_MS; specs shorten it). */
  leaseMs?: number;
}

/** RELAY_QUOTA_BLOCKS=off: every request reserves in Redis on its own (no blocks). */
export function quotaBlocksEnabled(env: Record<string, string | undefined> = process.env): boolean {
  return !['off', 'false', '0'].includes((env.RELAY_QUOTA_BLOCKS ?? '').trim().toLowerCase());
}

/**
 * Quota admission for the relay hot path: an atomic Redis reservation against the user's and the token's
 * available quota, so concurrent requests can never reserve more than is there. No database round trip in the
 * common case: a balance is read from Postgres once, then kept current by the projector (pushBase) and by
 * settlements. See quota-scripts.ts for the data layout and docs/relay.md for the crash analysis.
 */
@Injectable()
export class QuotaAdmissionService implements OnModuleDestroy, QuotaAdmission {
  private readonly redis: Commands;
  /** This process's quota blocks (null: RELAY_QUOTA_BLOCKS=off). See quota-blocks.ts. */
  private readonly blocks: QuotaBlocks | null;
  private readonly blockLeases: LeaseRenewer;
  private idleTimer: NodeJS.Timeout | null = null;
  /** Lease of the blocks, and of what the settlement renews (renewMany): LEASE_MS unless a spec sets it. */
  readonly leaseMs: number;

  constructor(
    @Inject(REDIS) redis: Redis,
    private readonly keys: RedisKeys,
    private readonly dataSource: DataSource,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    /** Specs of the Redis mechanics pass `{ blocks: false }`; the product reads RELAY_QUOTA_BLOCKS. */
    @Optional() @Inject(QUOTA_ADMISSION_OPTIONS) options: QuotaAdmissionOptions | null = null,
  ) {
    this.leaseMs = options?.leaseMs ?? LEASE_MS;
    // Admission's own connection, auto-pipelined: the scripts that concurrent relay requests issue in one turn of
    // the event loop (a reserve and its lease-index ZADD, other requests' settles) leave in one socket write
    // instead of one write each. Every admission command goes through this one connection, so they still run in
    // the order they were issued (the settlement relies on that, see RelaySettlementService).
    this.redis = redis.duplicate({ enableAutoPipelining: true }) as Commands;
    this.redis.defineCommand('tgReserve', { numberOfKeys: 8, lua: RESERVE });
    this.redis.defineCommand('tgSettle', { numberOfKeys: 7, lua: SETTLE });
    this.redis.defineCommand('tgSettleMany', { numberOfKeys: 7, lua: SETTLE_MANY });
    this.redis.defineCommand('tgRelease', { numberOfKeys: 7, lua: RELEASE });
    this.redis.defineCommand('tgRenew', { numberOfKeys: 1, lua: RENEW });
    this.redis.defineCommand('tgRenewMany', { numberOfKeys: 1, lua: RENEW_MANY });
    this.redis.defineCommand('tgExpire', { lua: EXPIRE });
    this.redis.defineCommand('tgSetBase', { numberOfKeys: 2, lua: SET_BASE });
    this.redis.defineCommand('tgGrow', { numberOfKeys: 8, lua: GROW });
    this.redis.defineCommand('tgShrink', { numberOfKeys: 3, lua: SHRINK });
    this.blockLeases = new LeaseRenewer((blockId, userId) => this.renew({ requestId: blockId, userId, leaseMs: this.leaseMs }), Math.floor(this.leaseMs / 3));
    const owner = randomBytes(4).toString('hex');
    this.blocks = (options?.blocks ?? quotaBlocksEnabled())
      ? new QuotaBlocks(this.blockStore(), () => owner, {
          ...DEFAULT_BLOCK_OPTIONS,
          idleMs: Math.max(100, Number(process.env.RELAY_QUOTA_BLOCK_IDLE_MS) || DEFAULT_BLOCK_OPTIONS.idleMs),
        })
      : null;
  }

  /** The Redis side of quota blocks: relative, atomic scripts on admission's one ordered connection. */
  private blockStore(): BlockStore {
    return {
      grow: async (block, extra) => {
        const withToken = block.tokenId !== null;
        const keys = [...this.scriptKeys(block.userId, block.tokenId), this.accountKeys(block.userId).tokens];
        const expiresAt = Date.now() + this.leaseMs;
        const [status, user, token] = await this.redis.tgGrow(...keys, block.id, Math.ceil(extra), expiresAt, withToken ? 1 : 0, block.tokenId ?? 0);
        if (status === 0) {
          // A balance is not loaded yet (the block's first request loaded it a moment ago, so rarely): not now.
          return { ok: false, userAvailable: 0, tokenAvailable: withToken ? 0 : null };
        }
        if (status === 1) void this.redis.zadd(this.leaseUsersKey, 'LT', expiresAt, String(block.userId)).catch(() => undefined);
        return { ok: status === 1, userAvailable: user, tokenAvailable: withToken ? token : null };
      },
      shrink: async (block, amount) => {
        const account = this.accountKeys(block.userId);
        const token = this.tokenKeys(block.userId, block.tokenId ?? 0);
        await this.redis.tgShrink(account.resv, account.leases, token.resv, block.id, Math.ceil(amount), block.tokenId !== null ? 1 : 0);
      },
      hold: (block: QuotaBlock) => this.blockLeases.hold(block.id, block.userId),
      unhold: (block: QuotaBlock) => this.blockLeases.release(block.id),
    };
  }

  /** Blocks this process holds (tests, metrics). */
  get quotaBlocks(): ReadonlyArray<Readonly<QuotaBlock>> {
    return this.blocks?.blocks ?? [];
  }

  /** Drains idle blocks once a second (only while some exist; the timer never keeps the process alive). */
  private watchIdleBlocks(): void {
    if (this.idleTimer || !this.blocks) return;
    this.idleTimer = setInterval(() => {
      this.blocks!.drainIdle();
      if (this.blocks!.blocks.length === 0 && this.idleTimer) {
        clearInterval(this.idleTimer);
        this.idleTimer = null;
      }
    }, 500);
    this.idleTimer.unref();
  }

  /**
   * Gives the blocks' free capacity back, then lets commands already issued (settlements fired without waiting)
   * finish, for at most a second. What blocks still hold for answered charges expires with their leases.
   */
  async onModuleDestroy(): Promise<void> {
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.idleTimer = null;
    await this.blocks?.drainAll().catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    const quit = await Promise.race([
      this.redis.quit().then(() => true, () => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 1000))),
    ]);
    clearTimeout(timer);
    // Only when QUIT did not go through: after it, the server closes the socket, and ioredis's disconnect() would arm
    // a 2 s timer that waits for a 'close' already emitted (it kept a stopping process, and jest's workers, alive).
    if (!quit && this.redis.status !== 'end') this.redis.disconnect();
  }

  private tag(userId: number): string {
    return this.keys.key(`{u:${userId}}`);
  }

  private accountKeys(userId: number) {
    const tag = this.tag(userId);
    return { bal: `${tag}:acct`, settled: `${tag}:acct:settled`, resv: `${tag}:acct:resv`, leases: `${tag}:leases`, tokens: `${tag}:tokens` };
  }

  private tokenKeys(userId: number, tokenId: number) {
    const tag = this.tag(userId);
    return { bal: `${tag}:tok:${tokenId}`, settled: `${tag}:tok:${tokenId}:settled`, resv: `${tag}:tok:${tokenId}:resv` };
  }

  private scriptKeys(userId: number, tokenId: number | null): string[] {
    const account = this.accountKeys(userId);
    const token = this.tokenKeys(userId, tokenId ?? 0);
    return [account.bal, account.settled, account.resv, account.leases, token.bal, token.settled, token.resv];
  }

  private get leaseUsersKey(): string {
    return this.keys.key('lease-users');
  }

  /** Users whose expired leases wait for the projections to pass a head position (score), then a base reload. */
  private get refreshUsersKey(): string {
    return this.keys.key('lease-refresh');
  }

  async reserve(request: ReservationRequest): Promise<ReservationResult> {
    const amount = Math.max(0, Math.ceil(request.amount));
    if (this.blocks && request.leaseMs > 0) {
      const attempt = this.blocks.tryHold(request.requestId, request.userId, request.tokenId, amount);
      if (attempt.hold) {
        // Admitted in memory; the figures are only read on refusals.
        return { ok: true, userAvailable: Number.NaN, tokenAvailable: request.tokenId !== null ? Number.NaN : null, reservation: { id: attempt.hold.block.id, kind: 'block' } };
      }
      if (attempt.wait) await attempt.wait;
    }
    let result = await this.reserveInRedis({ ...request, amount });
    // Refused: if this process holds capacity for the user (or token) in blocks, it goes back first and the request
    // is tried once more, so a refusal never leaves quota unused in this process.
    for (let attempt = 0; !result.ok && this.blocks && attempt < 3; attempt++) {
      if (!(await this.blocks.giveBackFor(request.userId, result.reason === 'token' ? request.tokenId : null))) break;
      result = await this.reserveInRedis({ ...request, amount });
    }
    if (result.ok && this.blocks && request.leaseMs > 0) {
      this.blocks.consider(request.userId, request.tokenId, amount, result.userAvailable, result.tokenAvailable);
      this.watchIdleBlocks();
    }
    return result;
  }

  /** A request's own reservation in Redis (RESERVE), loading a balance first if admission has not seen it yet. */
  private async reserveInRedis(request: ReservationRequest): Promise<ReservationResult> {
    const amount = request.amount;
    const withToken = request.tokenId !== null;
    const expiresAt = Date.now() + request.leaseMs;
    const keys = [...this.scriptKeys(request.userId, request.tokenId), this.accountKeys(request.userId).tokens];
    for (let attempt = 0; attempt < 3; attempt++) {
      const [status, user, token] = await this.redis.tgReserve(
        ...keys, request.requestId, amount, expiresAt, withToken ? 1 : 0, request.tokenId ?? 0,
      );
      if (status === 1) {
        // Index for the sweeper (another slot in a cluster, so outside the script; harmless if it lags). Its score
        // is a lower bound of the user's earliest lease expiry (LT), so a busy user's newer leases never push a
        // dead one's sweep into the future (with GT a user with steady traffic kept a crashed request's quota).
        if (request.leaseMs > 0) void this.redis.zadd(this.leaseUsersKey, 'LT', expiresAt, String(request.userId)).catch(() => undefined);
        return { ok: true, userAvailable: user, tokenAvailable: withToken ? token : null, reservation: { id: request.requestId, kind: 'request' } };
      }
      if (status === 2) return { ok: false, reason: 'user', userAvailable: user, tokenAvailable: withToken ? token : null };
      if (status === 3) return { ok: false, reason: 'token', userAvailable: user, tokenAvailable: token };
      if (user === -1) await this.loadBase('account', request.userId, request.userId);
      else await this.loadBase('token', request.userId, request.tokenId ?? 0);
    }
    throw new Error(`quota admission: balance of user ${request.userId} could not be loaded`);
  }

  /**
   * The request was answered and its charge is durable: for a request admitted from a block, the charge takes the
   * hold's place in the block until it reaches the ledger. (A request's own reservation waits in Redis as it is.)
   */
  charged(requestId: string, amount: number): void {
    this.blocks?.charged(requestId, Math.round(amount));
  }

  /**
   * The charge of a request admitted from a block could not be made durable (journal and ledger both failed, or the
   * append's outcome is unknown): its hold stays for one lease, as a request's own reservation would, then goes.
   */
  keepHeld(requestId: string): void {
    if (!this.blocks?.holdOf(requestId)) return;
    setTimeout(() => this.blocks?.releaseHold(requestId), this.leaseMs).unref();
  }

  async settle(request: SettlementRequest): Promise<void> {
    await this.redis.tgSettle(
      ...this.scriptKeys(request.userId, request.tokenId),
      request.requestId, Math.round(request.amount), request.position, request.tokenId !== null ? 1 : 0,
    );
  }

  /**
   * Charges of one user that are now in the ledger (all with the same reserved token, or none), in one script:
   * see SETTLE_MANY. The relay's shipper calls it once per user and token per committed batch.
   */
  async settleMany(userId: number, tokenId: number | null, charges: ReadonlyArray<ShippedCharge>): Promise<void> {
    if (charges.length === 0) return;
    for (const charge of charges) if (charge.kind === 'block') this.blocks?.shipped(charge.reservation, Math.round(charge.amount));
    const args: Array<string | number> = [tokenId !== null ? 1 : 0];
    for (const charge of charges) {
      args.push(charge.reservation, charge.requestId, Math.round(charge.amount), charge.position, charge.kind === 'block' ? 'b' : 'r');
    }
    await this.redis.tgSettleMany(...this.scriptKeys(userId, tokenId), ...args);
  }

  async release(request: { requestId: string; userId: number; tokenId: number | null }): Promise<void> {
    if (this.blocks?.releaseHold(request.requestId)) return;
    await this.redis.tgRelease(...this.scriptKeys(request.userId, request.tokenId), request.requestId);
  }

  async renew(request: { requestId: string; userId: number; leaseMs: number }): Promise<boolean> {
    const expiresAt = Date.now() + request.leaseMs;
    const renewed = await this.redis.tgRenew(this.accountKeys(request.userId).leases, request.requestId, expiresAt);
    // A later expiry keeps the index's lower bound valid; LT only (re)adds the user if the index lost it.
    if (renewed) void this.redis.zadd(this.leaseUsersKey, 'LT', expiresAt, String(request.userId)).catch(() => undefined);
    return renewed === 1;
  }

  /**
   * Extends the leases of several reservations of one user in one script (RENEW_MANY), for `leaseMs` (default: this
   * admission's lease). Reservations already settled or swept are left alone. Resolves with how many were extended.
   * A long outage can leave many charges of one user waiting: they go 1,000 per script, so none blocks Redis for long.
   */
  async renewMany(userId: number, reservationIds: readonly string[], leaseMs = this.leaseMs): Promise<number> {
    if (reservationIds.length === 0) return 0;
    const expiresAt = Date.now() + leaseMs;
    const leases = this.accountKeys(userId).leases;
    const scripts: Array<Promise<number>> = [];
    for (let index = 0; index < reservationIds.length; index += 1_000) {
      scripts.push(this.redis.tgRenewMany(leases, expiresAt, ...reservationIds.slice(index, index + 1_000)));
    }
    const renewed = (await Promise.all(scripts)).reduce((sum, count) => sum + count, 0);
    if (renewed > 0) void this.redis.zadd(this.leaseUsersKey, 'LT', expiresAt, String(userId)).catch(() => undefined);
    return renewed;
  }

  /**
   * Available quota as admission sees it now (console display and tests): what Redis has not reserved, plus the free
   * capacity of this process's own blocks (quota it holds but would admit with). Other processes' blocks count as
   * reserved until they drain (at most an eighth of the balance each, and idle ones drain within seconds).
   */
  async available(userId: number, tokenId: number | null = null): Promise<{ user: number; token: number | null }> {
    const probe = await this.reserveInRedis({ requestId: '__probe__', userId, tokenId, amount: Number.MAX_SAFE_INTEGER, leaseMs: 0 });
    let user = probe.userAvailable;
    let token = probe.tokenAvailable;
    for (const block of this.blocks?.blocks ?? []) {
      if (block.userId !== userId) continue;
      const free = Math.max(0, block.size - block.used);
      user += free;
      if (token !== null && block.tokenId === tokenId) token += free;
    }
    return { user, token };
  }

  /**
   * Reservations whose lease ran out (their process died) stop holding quota once the projection passes the
   * head position seen now. Run by the worker role every few seconds.
   */
  async sweepExpired(now = Date.now()): Promise<number> {
    const expired = await this.expireLeases(now);
    await this.refreshSweptBases();
    return expired;
  }

  private async expireLeases(now: number): Promise<number> {
    const users = await this.redis.zrangebyscore(this.leaseUsersKey, '-inf', now);
    if (users.length === 0) return 0;
    const head = await this.store.headPosition();
    let expired = 0;
    for (const id of users) {
      const userId = Number(id);
      const account = this.accountKeys(userId);
      const tokenIds = await this.redis.smembers(account.tokens);
      const tokenKeys = tokenIds.flatMap((tokenId) => {
        const token = this.tokenKeys(userId, Number(tokenId));
        return [token.settled, token.resv];
      });
      const keys = [account.settled, account.resv, account.leases, ...tokenKeys];
      const count = await this.redis.tgExpire(keys.length, ...keys, now, head);
      expired += count;
      if (count > 0) await this.redis.zadd(this.refreshUsersKey, 'GT', head, id);
      // Keep the user indexed while later leases remain; the GT update never moves an entry backwards.
      const next = await this.redis.zrange(account.leases, 0, 0, 'WITHSCORES');
      if (next.length === 0) await this.redis.zrem(this.leaseUsersKey, id);
      else await this.redis.zadd(this.leaseUsersKey, Number(next[1]), id);
    }
    return expired;
  }

  /**
   * An expired lease's entry (at the head position of its sweep) is pruned only when the base moves past that
   * position, and the projector moves a base only when an event of that account or token is projected. A user
   * whose request died and who sends nothing else (or cannot: the entry holds all their quota) would keep the
   * quota held forever. So once the balance projections' checkpoints pass the sweep's head, the swept bases are
   * reloaded from the projections (balance and checkpoint in one snapshot), which prunes the entries.
   */
  private async refreshSweptBases(): Promise<void> {
    const pending = await this.redis.zrange(this.refreshUsersKey, 0, -1, 'WITHSCORES');
    if (pending.length === 0) return;
    const rows: Array<{ name: string; position: string }> = await this.dataSource.query(
      'SELECT name, position FROM projection_checkpoints WHERE name = ANY($1)',
      [[BALANCE_SOURCES.account.projection, BALANCE_SOURCES.token.projection]],
    );
    const checkpoint = (name: string) => Number(rows.find((row) => row.name === name)?.position ?? 0);
    const reached = Math.min(checkpoint(BALANCE_SOURCES.account.projection), checkpoint(BALANCE_SOURCES.token.projection));
    for (let index = 0; index < pending.length; index += 2) {
      const id = pending[index];
      const head = Number(pending[index + 1]);
      if (head > reached) continue;
      const userId = Number(id);
      await this.loadBase('account', userId, userId);
      for (const tokenId of await this.redis.smembers(this.accountKeys(userId).tokens)) {
        await this.loadBase('token', userId, Number(tokenId));
      }
      // Removed only if no later sweep re-queued the user at a higher head meanwhile.
      await this.redis.eval(
        "if tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or '-1') <= tonumber(ARGV[2]) then redis.call('ZREM', KEYS[1], ARGV[1]) end return 1",
        1, this.refreshUsersKey, id, head,
      );
    }
  }

  /** The projector calls this after committing a balance change: only bases already loaded are moved. */
  async pushBase(kind: 'account' | 'token', userId: number, id: number, balance: number, position: number): Promise<void> {
    const keys = kind === 'account' ? this.accountKeys(userId) : this.tokenKeys(userId, id);
    await this.redis.tgSetBase(keys.bal, keys.settled, balance, position, 1);
  }

  /** Reads the base from its projection (the balance and the checkpoint it is valid at, in one snapshot). */
  async loadBase(kind: 'account' | 'token', userId: number, id: number): Promise<void> {
    const source = BALANCE_SOURCES[kind];
    const rows: Array<{ balance: string | null; position: string | null }> = await this.dataSource.query(
      `SELECT (${source.sql}) AS balance, (SELECT position FROM projection_checkpoints WHERE name = $2) AS position`,
      [id, source.projection],
    );
    const balance = Number(rows[0]?.balance ?? 0);
    const position = Number(rows[0]?.position ?? 0);
    const keys = kind === 'account' ? this.accountKeys(userId) : this.tokenKeys(userId, id);
    await this.redis.tgSetBase(keys.bal, keys.settled, balance, position, 0);
  }
}
