import { rmdirSync, unlinkSync } from 'node:fs';
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit, Optional } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, CONFIG_DEFAULTS } from '../../config/app-config';
import { type AppendOutcome, type AppendRequest, EVENT_STORE, type EventStore } from '../../ledger/event-store.port';
import { LEASE_MS, QuotaAdmissionService } from '../admission/quota-admission.service';
import { SHUTDOWN_REDIS_WAIT_MS } from '../admission/redis-readiness';
import { WaitingChargeLeases } from '../leases/waiting-charge-leases';
import { AdmissionSettles } from './admission-settles';
import { appendChargeWithCompanions } from './charge-with-companions';
import { type ChargeDurability, journalDirectory, journalInstallation } from './charge-durability';
import { type ChargeRecord, type ChargeSettlement, ChargeJournal, type JournalTicket, orphanSegments, readSegment } from './charge-journal';
import { GroupCommitAppender, type GroupCommitOptions, groupCommitOptions, JOURNAL_LINGER_MS } from './group-commit';
import { JournalOwnerLock } from './journal-owner-lock';
import type { QuotaConsumedData } from '../../modules/accounts';
import { quotaConsumedEvent } from '../../modules/accounts';

export interface SettlementInput {
  data: QuotaConsumedData;
  userRole: number;
  clientIp: string;
  /** The reservation's token (null: unlimited token or playground). */
  reservedTokenId: number | null;
  /** The admission reservation that admitted the request (default: the request's own). */
  reservation?: { id: string; kind: 'request' | 'block' };
}

/** The event id of a request's one charge (retried settlements append nothing new): see the QuotaConsumed codec. */
export { quotaConsumedEventId, RELAY_REQUEST_NAMESPACE } from '../../modules/accounts';

interface Shipment {
  record: ChargeRecord;
  ticket: JournalTicket | null;
  attempts: number;
}

const MAX_RETRY_DELAY_MS = 5_000;

/** Waits for `work` or until `deadline` (epoch ms); the timer goes as soon as `work` settles, so it never keeps a stopping process alive. */
async function untilOrDeadline(work: Promise<unknown>, deadline: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise((done) => {
    timer = setTimeout(done, Math.max(1, deadline - Date.now()));
  });
  await Promise.race([work, timedOut]).finally(() => clearTimeout(timer));
}

/**
 * Turns an answered request into its one QuotaConsumed event. The charge is first made durable (the journal, or the
 * ledger itself in `ledger` mode) and only then may the answer end; the ledger append goes through group commit
 * (group-commit.ts) and, once committed, admission moves the amount from the reservation into its settled set at
 * the event's position (one Redis script per user per batch). A failed append is retried with backoff until it
 * commits: the charge is in the journal meanwhile, and its reservation keeps holding the quota.
 *
 * Holding the quota while the ledger is down: the pipeline stops renewing a request's lease when its answer ends, so
 * from the moment a charge is journalled until admission settled it, this service keeps that reservation's lease
 * alive (WaitingChargeLeases: one shared timer, one RENEW_MANY per user, and only for charges that waited longer than
 * half a renewal interval, so a healthy ledger costs no Redis command). Otherwise an outage longer than the lease
 * would let the sweep free the reservation of a charge that is still to be shipped. A charge admitted from a quota
 * block needs nothing here: the block counts it as used until it is shipped, never gives it back, and admission
 * renews the block's lease for as long as anything is used (quota-blocks.ts). At shutdown the renewal stops with
 * whatever is still unshipped; it stays in the journal for recoverOrphans (docs/ledger.md).
 *
 * A process that dies leaves its journal behind; recoverOrphans() (at boot in the api role, and on every lease sweep
 * in the worker role) ships the charges of writers that are gone, which it knows by their journal owner lock.
 */
@Injectable()
export class RelaySettlementService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(RelaySettlementService.name);
  private appender: GroupCommitAppender;
  private readonly durability: ChargeDurability;
  private journal: ChargeJournal | null = null;
  private ownerLock: JournalOwnerLock | null = null;
  /** Ship attempts out (appended, not answered yet); drain() waits for none. */
  private shipping = 0;
  private idleWaiters: Array<() => void> = [];
  private readonly retrying = new Set<NodeJS.Timeout>();
  private consecutiveFailures = 0;
  /** The admission side of committed charges: one script per user and token per turn. */
  private readonly admissionSettles: AdmissionSettles;
  private recovering: Promise<number> | null = null;
  private closed = false;
  /** Leases of 'request' reservations whose charge is journalled and not yet settled by admission. */
  private readonly waitingLeases: WaitingChargeLeases;
  private renewFailures = 0;
  /** Segments in this folder that belong to another installation (a shared folder): skipped by every later sweep. */
  private readonly foreignSegments = new Set<string>();

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly admission: QuotaAdmissionService,
    /** Absent in specs that build the service by hand: no journal, every charge is appended before settle resolves. */
    @Optional() @Inject(APP_CONFIG) private readonly config: AppConfig | null = null,
  ) {
    this.appender = this.newAppender(groupCommitOptions(config ?? CONFIG_DEFAULTS));
    this.durability = (config ?? CONFIG_DEFAULTS).RELAY_CHARGE_DURABILITY;
    // The lease the pipeline reserved with (LEASE_MS; a spec's admission may shorten it), renewed at a third as there.
    const leaseMs = admission.leaseMs ?? LEASE_MS;
    this.waitingLeases = new WaitingChargeLeases((userId, ids) => this.renewWaiting(userId, ids), Math.floor(leaseMs / 3));
    this.admissionSettles = new AdmissionSettles(admission, this.waitingLeases, this.logger);
  }

  /** Only processes that relay (api) or recover (worker) need the owner lock; the journal only where answers end. */
  async onModuleInit(): Promise<void> {
    const roles = this.config?.roles ?? [];
    if (!roles.includes('api') && !roles.includes('worker')) return;
    const config = this.config!;
    this.ownerLock = new JournalOwnerLock(config.DATABASE_URL);
    const owner = await this.ownerLock.acquireOwnership();
    if (roles.includes('api') && this.durability === 'journal') {
      this.journal = new ChargeJournal({
        dir: journalDirectory(config),
        owner,
        installation: this.installation(),
        fsync: config.RELAY_JOURNAL_FSYNC,
      });
      // Answers no longer wait for the append: batch a few milliseconds of charges (JOURNAL_LINGER_MS).
      this.appender = this.newAppender(groupCommitOptions(config, { lingerMs: JOURNAL_LINGER_MS }));
    }
    if (roles.includes('api')) {
      // Charges a previous process left unshipped (a crash or a kill): shipped in the background, not before listening.
      void this.recoverOrphans().catch((error: unknown) => this.logger.error(`charge journal recovery failed: ${String(error)}`));
    }
  }

  /**
   * Ships what is in flight (for at most 10 s), then closes the journal: what could not be shipped stays for recovery.
   * With admission's Redis away, its side (the settles, a recovery's lease renewals) is waited for only
   * SHUTDOWN_REDIS_WAIT_MS: the charges are in the ledger or the journal, and their reservations' leases run out.
   */
  async onModuleDestroy(): Promise<void> {
    this.closed = true;
    await this.drain(10_000, SHUTDOWN_REDIS_WAIT_MS);
    for (const timer of this.retrying) clearTimeout(timer);
    this.retrying.clear();
    // What is still unshipped stays in the journal; its leases run out one lease after their last renewal.
    this.waitingLeases.stop();
    if (this.recovering) await this.admission.whileRedisReachable(this.recovering, SHUTDOWN_REDIS_WAIT_MS);
    if (this.journal) {
      this.journal.close();
      try {
        rmdirSync(this.journal.dir); // only when empty: another process's files keep it
      } catch {
        // not empty, or already gone
      }
    }
    await this.ownerLock?.close();
  }

  /** Replaces the group-commit settings (the throughput test compares them). */
  useGroupCommit(options: GroupCommitOptions): void {
    this.appender = this.newAppender(options);
  }

  /** Group commit over this store; a bug in a shipping callback is logged, never allowed to stop the batch's others. */
  private newAppender(options: GroupCommitOptions): GroupCommitAppender {
    return new GroupCommitAppender(this.store, options, (error) => this.logger.error(`charge shipping callback failed: ${String(error)}`));
  }

  groupCommitStats() {
    return this.appender.stats();
  }

  groupCommitSettings(): GroupCommitOptions {
    return this.appender.settings();
  }

  /** Charges written to the journal and not yet in the ledger (this process). */
  get unshipped(): number {
    return this.journal?.pending ?? 0;
  }

  /**
   * Makes the request's charge durable. When this resolves, the answer may end: in `journal` mode the charge is in
   * the journal (its ledger append follows off the answer's path; `position` is null), in `ledger` mode (or when the
   * journal could not be written) it is committed in the ledger at `position`.
   */
  async settle(input: SettlementInput): Promise<{ position: number | null }> {
    const record = this.record(input);
    if (this.journal) {
      let ticket: JournalTicket | null = null;
      try {
        ticket = await this.journal.write(record);
      } catch (error) {
        // The disk refused (full, read-only): fall back to the ledger itself before the answer ends.
        this.logger.error(`charge journal write failed, appending ${record.settlement.requestId} directly: ${String(error)}`);
      }
      if (ticket) {
        // The pipeline stops renewing the request's lease when this returns: from now on it is renewed here while the
        // charge waits for the ledger (a map entry; Redis only if it waits longer than half a renewal interval).
        if (record.settlement.kind === 'request') this.waitingLeases.add(record.settlement.reservation, record.settlement.userId);
        this.ship({ record, ticket, attempts: 0 });
        return { position: null };
      }
    }
    const result = await this.appender.append({ streamId: record.streamId, events: [record.event], expectedRevision: 'any' });
    this.admissionSettles.add(record.settlement, result.position);
    return { position: result.position };
  }

  /**
   * A charge that must commit together with other appends (an asynchronous task's first event, so a user is never
   * charged for a task that does not exist, and a task never exists unpaid): no journal, the charge and its
   * `companions` through appendChargeWithCompanions: one transaction on Postgres; on a store without a multi-stream
   * transaction (EventStoreDB) the charge first and the companions only once it is in, so a refund of a task always
   * gives back a charge the ledger holds. A call whose promise rejected wrote no companion and may or may not have
   * written the charge: repeat it with the same event ids (the charge's id derives from the request; the companions'
   * must derive too), which is then a no-op for what is in. Returns the charge's position and each companion's
   * outcome; throws if the charge itself was not appended.
   */
  async settleWith(input: SettlementInput, companions: AppendRequest[]): Promise<{ position: number; companions: AppendOutcome[] }> {
    const record = this.record(input);
    const charge: AppendRequest = { streamId: record.streamId, events: [record.event], expectedRevision: 'any' };
    const appended = await appendChargeWithCompanions(this.store, charge, companions);
    this.admissionSettles.add(record.settlement, appended.charge.position);
    return { position: appended.charge.position, companions: appended.companions };
  }

  /**
   * Resolves when every charge handed over so far is in the ledger and admission has settled it in Redis, or after
   * `timeoutMs`. At shutdown this is what lets the reservations go at once rather than at the lease sweep. The settles
   * are waited for while admission's Redis is reachable, and for Redis at most `redisDownMs` at a time while it is not
   * (default RELAY_ADMISSION_REDIS_WAIT_MS): with Redis gone they would wait in ioredis's queue until the deadline.
   */
  async drain(timeoutMs = 30_000, redisDownMs?: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.shipping > 0 && Date.now() < deadline) {
      await untilOrDeadline(this.shippingIdle(), deadline);
    }
    this.admissionSettles.flush();
    const settling = this.admissionSettles.sending;
    if (settling.size > 0 && Date.now() < deadline) {
      await untilOrDeadline(this.admission.whileRedisReachable(Promise.allSettled([...settling]), redisDownMs), deadline);
    }
  }

  /**
   * Ships the journals of processes that are gone (their owner lock is free), oldest segment first, and deletes
   * them. Returns how many charges it shipped (appends of charges already in the ledger are no-ops).
   */
  recoverOrphans(): Promise<number> {
    if (!this.recovering) {
      this.recovering = this.recoverNow().finally(() => {
        this.recovering = null;
      });
    }
    return this.recovering;
  }

  private async recoverNow(): Promise<number> {
    const lock = this.ownerLock;
    if (!lock || !this.config || this.closed) return 0;
    await lock.ensure();
    const dir = journalDirectory(this.config);
    let shipped = 0;
    for (const [owner, files] of orphanSegments(dir, lock.owner)) {
      if (!(await lock.tryLock(owner))) continue; // its writer is alive (or another process is recovering it)
      try {
        for (const file of files) {
          if (this.foreignSegments.has(file)) continue;
          const records = readSegment(file, this.installation());
          if (records === null) {
            // Said once, and never read again by this process (the sweep runs every few seconds).
            this.foreignSegments.add(file);
            this.logger.warn(`charge journal ${file} belongs to another installation; left alone`);
            continue;
          }
          // The dead writer no longer renews the leases of its unshipped charges, so every recovery attempt does, before
          // its appends: if they fail (the ledger refuses appends while the projections, which only read, carry on),
          // the reservations stay held until a later sweep ships the charges, instead of this sweep's expiry pass
          // freeing them while the charges wait. One renewal per sweep (RELAY_LEASE_SWEEP_MS, 5 s) is well inside a
          // lease (RELAY_LEASE_MS, 60 s); if no process sweeps any more, the leases run out as they should. Renewal
          // only touches leases that still exist: a reservation already settled or expired is left alone. A quota
          // block's lease (its charges' reservation) is renewed the same way: the dead process no longer renews it, and
          // the block counts the unshipped charges as used.
          const byUser = new Map<number, Set<string>>();
          for (const { settlement } of records) {
            const ids = byUser.get(settlement.userId);
            if (ids) ids.add(settlement.reservation);
            else byUser.set(settlement.userId, new Set([settlement.reservation]));
          }
          for (const [userId, ids] of byUser) await this.renewWaiting(userId, [...ids]);
          const results = await Promise.all(
            records.map((record) => this.appender.append({ streamId: record.streamId, events: [record.event], expectedRevision: 'any' })),
          );
          records.forEach((record, index) => this.admissionSettles.add(record.settlement, results[index].position));
          this.admissionSettles.flush();
          shipped += records.length;
          unlinkSync(file);
        }
      } finally {
        await lock.unlock(owner).catch(() => undefined);
      }
      this.logger.warn(`charge journal: shipped ${shipped} charge(s) left by stopped process ${owner}`);
    }
    return shipped;
  }

  private installation(): string {
    return journalInstallation(this.config!);
  }

  private record(input: SettlementInput): ChargeRecord {
    const { data } = input;
    const { streamId, event } = quotaConsumedEvent(data, { userRole: input.userRole, clientIp: input.clientIp });
    const settlement: ChargeSettlement = {
      requestId: data.requestId,
      userId: data.userId,
      tokenId: input.reservedTokenId,
      amount: data.quota,
      reservation: input.reservation?.id ?? data.requestId,
      kind: input.reservation?.kind ?? 'request',
    };
    return { streamId, event, settlement };
  }

  /**
   * One attempt to append a journalled charge, through group commit's callback form: no promise per charge (the
   * charge waits a linger and a round trip, so per-charge promises and their reactions outlived the young
   * generation's collections; docs/benchmark.md, 2026-11-26). `shipping` counts the attempts out, for drain().
   */
  private ship(shipment: Shipment): void {
    const { record } = shipment;
    this.shipping++;
    this.appender.submit(
      { streamId: record.streamId, events: [record.event], expectedRevision: 'any' },
      (result) => {
        this.shipped();
        this.consecutiveFailures = 0;
        this.admissionSettles.add(record.settlement, result.position);
        if (shipment.ticket) this.journal?.done(shipment.ticket);
      },
      (error: unknown) => {
        this.shipped();
        this.retry(shipment, error);
      },
    );
  }

  /** An attempt came back (either way): drain() is woken once none is out. */
  private shipped(): void {
    this.shipping--;
    if (this.shipping === 0 && this.idleWaiters.length > 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const wake of waiters) wake();
    }
  }

  /** Resolves once no ship attempt is out (at once when none is). */
  private shippingIdle(): Promise<void> {
    if (this.shipping === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** The charge stays in the journal and its reservation keeps holding quota (its lease renewed); the append is tried again. */
  private retry(shipment: Shipment, error: unknown): void {
    shipment.attempts++;
    this.consecutiveFailures++;
    if (shipment.attempts === 1 || shipment.attempts % 20 === 0) {
      this.logger.error(
        `ledger append of ${shipment.record.settlement.requestId} failed (attempt ${shipment.attempts}); the charge stays in the journal and is retried: ${String(error)}`,
      );
    }
    if (this.closed) return; // left in the journal for the recovery of another process or the next start
    const delay = Math.min(MAX_RETRY_DELAY_MS, 50 * 2 ** Math.min(this.consecutiveFailures, 10));
    const timer = setTimeout(() => {
      this.retrying.delete(timer);
      this.ship(shipment);
    }, delay);
    this.retrying.add(timer);
  }

  private async renewWaiting(userId: number, reservationIds: string[]): Promise<void> {
    try {
      await this.admission.renewMany(userId, reservationIds);
    } catch (error) {
      if (this.renewFailures++ % 100 === 0) {
        this.logger.error(
          `lease renewal of ${reservationIds.length} unshipped charge(s) of user ${userId} failed (${this.renewFailures} so far): ${String(error)}`,
        );
      }
    }
  }
}
