import { Inject, Injectable, Logger, type OnModuleDestroy, Optional } from '@nestjs/common';
import type Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig, CONFIG_DEFAULTS } from '../../config/app-config';
import { EVENT_STORE, type EventStore } from '../../ledger/event-store.port';
import { REDIS } from '../../infrastructure/redis/redis.constants';
import type { QuotaAdmission } from '../../modules/accounts';
import { RedisKeys } from '../../infrastructure/redis/redis-keys';
import { randomBytes } from 'node:crypto';
import { LeaseRenewer } from '../leases/lease-renewer';
import { closeRedis } from '../../infrastructure/redis/close-redis';
import { type AdmissionCommands, AdmissionKeys, openAdmissionConnection } from './admission-redis';
import { BalanceBases } from './balance-bases';
import { redisBlockStore } from './redis-block-store';
import { AdmissionUnavailableError, RedisReadiness, SHUTDOWN_REDIS_WAIT_MS } from './redis-readiness';
import type { AdmittedBy, ReservationRequest, ReservationResult, SettlementRequest, ShippedCharge } from './quota-admission.types';
import { ExpiredLeases } from './expired-leases';
import { DEFAULT_BLOCK_OPTIONS, type QuotaBlock, QuotaBlocks } from './quota-blocks';

/** A reservation's lease without a configuration (RELAY_LEASE_MS's default, 60 s): how long a dead process's quota stays held. */
export type { AdmittedBy, ReservationRequest, ReservationResult, SettlementRequest, ShippedCharge } from './quota-admission.types';
export { AdmissionUnavailableError } from './redis-readiness';

export const LEASE_MS = CONFIG_DEFAULTS.RELAY_LEASE_MS;

export const QUOTA_ADMISSION_OPTIONS = Symbol('QUOTA_ADMISSION_OPTIONS');

export interface QuotaAdmissionOptions {
  /** false: every request reserves in Redis on its own (default: RELAY_QUOTA_BLOCKS). */
  blocks?: boolean;
  /** The lease of blocks and of renewals made through admission (default RELAY_LEASE_MS; specs shorten it). */
  leaseMs?: number;
  /** How long a request waits for a Redis that is down (default RELAY_ADMISSION_REDIS_WAIT_MS). */
  redisWaitMs?: number;
}

/**
 * Quota admission for the relay hot path: an atomic Redis reservation against the user's and the token's
 * available quota, so concurrent requests can never reserve more than is there. No database round trip in the
 * common case: a balance is read from Postgres once, then kept current by the projector (pushBase) and by
 * settlements. See quota-scripts.ts for the data layout and docs/relay.md for the crash analysis.
 */
@Injectable()
export class QuotaAdmissionService implements OnModuleDestroy, QuotaAdmission {
  private readonly logger = new Logger(QuotaAdmissionService.name);
  private readonly redis: AdmissionCommands;
  private readonly keys: AdmissionKeys;
  private readonly bases: BalanceBases;
  private readonly expiredLeases: ExpiredLeases;
  /** This process's quota blocks (null: RELAY_QUOTA_BLOCKS=off). See quota-blocks.ts. */
  private readonly blocks: QuotaBlocks | null;
  private readonly blockLeases: LeaseRenewer;
  private idleTimer: NodeJS.Timeout | null = null;
  /** Lease of the blocks, and of what the settlement renews (renewMany): RELAY_LEASE_MS unless a spec sets it. */
  readonly leaseMs: number;
  /** Waits, bounded by RELAY_ADMISSION_REDIS_WAIT_MS, for admission's connection while it is down: see reserveBounded. */
  private readonly readiness: RedisReadiness;

  constructor(
    @Inject(REDIS) redis: Redis,
    keys: RedisKeys,
    dataSource: DataSource,
    @Inject(EVENT_STORE) store: EventStore,
    /** Specs of the Redis mechanics pass `{ blocks: false }`; the product reads RELAY_QUOTA_BLOCKS. */
    @Optional() @Inject(QUOTA_ADMISSION_OPTIONS) options: QuotaAdmissionOptions | null = null,
    /** RELAY_LEASE_MS, RELAY_QUOTA_BLOCKS, RELAY_QUOTA_BLOCK_IDLE_MS; absent in specs that build the service by hand: the defaults. */
    @Optional()
    @Inject(APP_CONFIG)
    config: Pick<
      AppConfig,
      'RELAY_LEASE_MS' | 'RELAY_QUOTA_BLOCKS' | 'RELAY_QUOTA_BLOCK_IDLE_MS' | 'RELAY_ADMISSION_REDIS_WAIT_MS' | 'REDIS_UNRESPONSIVE_MS'
    > | null = null,
  ) {
    const settings = config ?? CONFIG_DEFAULTS;
    this.leaseMs = options?.leaseMs ?? settings.RELAY_LEASE_MS;
    this.redis = openAdmissionConnection(redis, settings.REDIS_UNRESPONSIVE_MS ?? CONFIG_DEFAULTS.REDIS_UNRESPONSIVE_MS);
    this.readiness = new RedisReadiness(
      this.redis,
      options?.redisWaitMs ?? settings.RELAY_ADMISSION_REDIS_WAIT_MS ?? CONFIG_DEFAULTS.RELAY_ADMISSION_REDIS_WAIT_MS,
    );
    this.keys = new AdmissionKeys(keys);
    this.bases = new BalanceBases(this.redis, this.keys, dataSource, this.readiness, (error) =>
      this.logger.error(`balance base push failed: ${String(error)}`),
    );
    this.expiredLeases = new ExpiredLeases(this.redis, this.keys, store, dataSource, this.bases);
    this.blockLeases = new LeaseRenewer(
      (blockId, userId) => this.renew({ requestId: blockId, userId, leaseMs: this.leaseMs }),
      Math.floor(this.leaseMs / 3),
    );
    const owner = randomBytes(4).toString('hex');
    this.blocks =
      (options?.blocks ?? settings.RELAY_QUOTA_BLOCKS)
        ? new QuotaBlocks(redisBlockStore(this.redis, this.keys, this.leaseMs, this.blockLeases), () => owner, {
            ...DEFAULT_BLOCK_OPTIONS,
            idleMs: settings.RELAY_QUOTA_BLOCK_IDLE_MS,
          })
        : null;
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
   * finish, for at most a second. What blocks still hold for answered charges expires with their leases. With Redis
   * away, the give-back is waited for SHUTDOWN_REDIS_WAIT_MS (its commands would wait for Redis forever): the blocks'
   * leases run out instead, as after a crash.
   */
  async onModuleDestroy(): Promise<void> {
    if (this.idleTimer) clearInterval(this.idleTimer);
    this.idleTimer = null;
    if (this.blocks) await this.readiness.whileReachable(this.blocks.drainAll(), SHUTDOWN_REDIS_WAIT_MS);
    // Lets commands already issued (settlements fired without waiting) finish, unless Redis is away.
    await closeRedis(this.redis);
  }

  async reserve(request: ReservationRequest): Promise<ReservationResult> {
    const amount = Math.max(0, Math.ceil(request.amount));
    if (this.blocks && request.leaseMs > 0) {
      const attempt = this.blocks.tryHold(request.requestId, request.userId, request.tokenId, amount);
      if (attempt.hold) {
        // Admitted in memory; the figures are only read on refusals.
        return {
          ok: true,
          userAvailable: Number.NaN,
          tokenAvailable: request.tokenId !== null ? Number.NaN : null,
          reservation: { id: attempt.hold.block.id, kind: 'block', amount },
        };
      }
      // Admission's connection is down: Redis is waited for at most RELAY_ADMISSION_REDIS_WAIT_MS. While it is up
      // (the common case) no timer and no extra promise: the status is a field read.
      if (!this.readiness.ready) return this.reserveBounded(request, amount, attempt.wait);
      return this.reserveWhileReachable(request, amount, attempt.wait);
    } else if (!this.readiness.ready) return this.reserveBounded(request, amount, null);
    return this.reserveWhileReachable(request, amount, null);
  }

  /**
   * reserveFromRedis (after `wait`, a block's growth in flight), given up with AdmissionUnavailableError when
   * admission's connection goes down meanwhile and stays down RELAY_ADMISSION_REDIS_WAIT_MS. That is how a Redis that
   * froze with this request's commands sent ends it: its liveness watch drops the connection (REDIS_UNRESPONSIVE_MS);
   * before, the request waited as long as Redis was frozen. A RESERVE that Redis runs after all, once it answers again
   * (ioredis resends it), holds its amount until its lease runs out; nothing is charged for the refused request.
   */
  private async reserveWhileReachable(
    request: ReservationRequest,
    amount: number,
    wait: Promise<void> | null | undefined,
  ): Promise<ReservationResult> {
    const reserved = wait ? wait.then(() => this.reserveFromRedis(request, amount)) : this.reserveFromRedis(request, amount);
    if (await this.readiness.whileReachable(reserved)) return reserved;
    throw new AdmissionUnavailableError(this.readiness.waitMs);
  }

  /**
   * reserveFromRedis while admission's connection is down. Its commands would wait in ioredis's offline queue with no
   * bound (maxRetriesPerRequest null), so none is issued yet: the request waits for the connection's next 'ready', at
   * most RELAY_ADMISSION_REDIS_WAIT_MS, then is refused with AdmissionUnavailableError, having reserved nothing and
   * queued nothing. Once Redis is back in time, it reserves as usual (reserveWhileReachable).
   */
  private async reserveBounded(
    request: ReservationRequest,
    amount: number,
    wait: Promise<void> | null | undefined,
  ): Promise<ReservationResult> {
    await this.readiness.waitReady();
    return this.reserveWhileReachable(request, amount, wait);
  }

  /** RESERVE in Redis, giving this process's blocks back for a refusal, then considering a block for what follows. */
  private async reserveFromRedis(request: ReservationRequest, amount: number): Promise<ReservationResult> {
    // The rounded amount beside the request, not `{ ...request, amount }`: on this V8 a spread followed by a property
    // makes a new hidden class on every call (docs/benchmark.md, 2026-11-25).
    let result = await this.reserveInRedis(request, amount);
    // Refused: if this process holds capacity for the user (or token) in blocks, it goes back first and the request
    // is tried once more, so a refusal never leaves quota unused in this process.
    for (let attempt = 0; !result.ok && this.blocks && attempt < 3; attempt++) {
      if (!(await this.blocks.giveBackFor(request.userId, result.reason === 'token' ? request.tokenId : null))) break;
      result = await this.reserveInRedis(request, amount);
    }
    if (result.ok && this.blocks && request.leaseMs > 0) {
      this.blocks.consider(request.userId, request.tokenId, amount, result.userAvailable, result.tokenAvailable);
      this.watchIdleBlocks();
    }
    return result;
  }

  /** A request's own reservation in Redis (RESERVE), loading a balance first if admission has not seen it yet. */
  private async reserveInRedis(request: ReservationRequest, amount = request.amount): Promise<ReservationResult> {
    const withToken = request.tokenId !== null;
    const expiresAt = Date.now() + request.leaseMs;
    const keys = [...this.keys.script(request.userId, request.tokenId), this.keys.account(request.userId).tokens];
    for (let attempt = 0; attempt < 3; attempt++) {
      const [status, user, token] = await this.redis.tgReserve(
        ...keys,
        request.requestId,
        amount,
        expiresAt,
        withToken ? 1 : 0,
        request.tokenId ?? 0,
      );
      if (status === 1) {
        // Index for the sweeper (another slot in a cluster, so outside the script; harmless if it lags). Its score
        // is a lower bound of the user's earliest lease expiry (LT), so a busy user's newer leases never push a
        // dead one's sweep into the future (with GT a user with steady traffic kept a crashed request's quota).
        if (request.leaseMs > 0) void this.redis.zadd(this.keys.leaseUsers, 'LT', expiresAt, String(request.userId)).catch(() => undefined);
        return {
          ok: true,
          userAvailable: user,
          tokenAvailable: withToken ? token : null,
          reservation: { id: request.requestId, kind: 'request', amount },
        };
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

  /**
   * The charge an answered request may make: `charge` when it fits the reservation that admitted it (no Redis
   * command: the common case), else the reservation plus as much of the excess as the user and a limited token still
   * have available, which then stays reserved until the charge settles (a block's free capacity first, then COVER).
   * So a charge never takes a balance below zero, whatever the upstream reports and however many requests overrun at
   * once: docs/ledger.md, "What a balance can go below zero by". Resolves with the amount to charge (≤ charge).
   */
  async boundCharge(request: {
    requestId: string;
    userId: number;
    tokenId: number | null;
    reservation: AdmittedBy;
    charge: number;
  }): Promise<number> {
    const { reservation } = request;
    const charge = Math.round(request.charge);
    if (charge <= reservation.amount) return charge;
    let extra = charge - reservation.amount;
    let hold: ReturnType<QuotaBlocks['growHold']>['hold'];
    if (reservation.kind === 'block') {
      const grown = this.blocks?.growHold(request.requestId, extra);
      if (!grown?.hold) return reservation.amount;
      hold = grown.hold;
      reservation.amount += extra - grown.uncovered;
      extra = grown.uncovered;
      if (extra === 0) return charge;
    }
    const grant = await this.redis.tgCover(
      ...this.keys.script(request.userId, request.tokenId),
      reservation.id,
      extra,
      request.tokenId !== null ? 1 : 0,
    );
    if (hold) this.blocks?.covered(hold, grant);
    reservation.amount += grant;
    return reservation.amount;
  }

  async settle(request: SettlementRequest): Promise<void> {
    await this.redis.tgSettle(
      ...this.keys.script(request.userId, request.tokenId),
      request.requestId,
      Math.round(request.amount),
      request.position,
      request.tokenId !== null ? 1 : 0,
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
    await this.redis.tgSettleMany(...this.keys.script(userId, tokenId), ...args);
  }

  async release(request: { requestId: string; userId: number; tokenId: number | null }): Promise<void> {
    if (this.blocks?.releaseHold(request.requestId)) return;
    await this.redis.tgRelease(...this.keys.script(request.userId, request.tokenId), request.requestId);
  }

  async renew(request: { requestId: string; userId: number; leaseMs: number }): Promise<boolean> {
    const expiresAt = Date.now() + request.leaseMs;
    const renewed = await this.redis.tgRenew(this.keys.account(request.userId).leases, request.requestId, expiresAt);
    // A later expiry keeps the index's lower bound valid; LT only (re)adds the user if the index lost it.
    if (renewed) void this.redis.zadd(this.keys.leaseUsers, 'LT', expiresAt, String(request.userId)).catch(() => undefined);
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
    const leases = this.keys.account(userId).leases;
    const scripts: Array<Promise<number>> = [];
    for (let index = 0; index < reservationIds.length; index += 1_000) {
      scripts.push(this.redis.tgRenewMany(leases, expiresAt, ...reservationIds.slice(index, index + 1_000)));
    }
    const renewed = (await Promise.all(scripts)).reduce((sum, count) => sum + count, 0);
    if (renewed > 0) void this.redis.zadd(this.keys.leaseUsers, 'LT', expiresAt, String(userId)).catch(() => undefined);
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
  sweepExpired(now = Date.now()): Promise<number> {
    return this.expiredLeases.sweep(now);
  }

  /**
   * The projector calls this after committing a balance change: only bases already loaded are moved. It waits for
   * Redis only while Redis is reachable (BalanceBases.push).
   */
  pushBase(kind: 'account' | 'token', userId: number, id: number, balance: number, position: number): Promise<void> {
    return this.bases.push(kind, userId, id, balance, position);
  }

  /** Base pushes waiting for admission's connection to be back. */
  get deferredBasePushes(): number {
    return this.bases.deferredPushes;
  }

  /**
   * Waits for `work` (admission commands already issued) while admission's Redis is reachable, and for Redis at most
   * `downMs` at a time while it is not: false when it stayed away (RedisReadiness.whileReachable).
   */
  whileRedisReachable(work: Promise<unknown>, downMs?: number): Promise<boolean> {
    return this.readiness.whileReachable(work, downMs);
  }

  /** Reads the base from its projection (the balance and the checkpoint it is valid at, in one snapshot). */
  loadBase(kind: 'account' | 'token', userId: number, id: number): Promise<void> {
    return this.bases.load(kind, userId, id);
  }
}
