import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { type AppConfig, CONFIG_DEFAULTS } from '../../config/app-config';
import { dataSourceOptions } from '../../infrastructure/database/data-source';
import { RedisKeys } from '../../infrastructure/redis/redis-keys';
import { createEventStore } from '../../ledger/create-event-store';
import { type EventStore, EventStoreUnavailableError } from '../../ledger/event-store.port';
import { accountStream } from '../../ledger/streams';
import { createTestDatabase, type TestDatabase, testRedisPrefix, testRedisUrl } from '#test/support/database';
import { type AdmittedBy, QuotaAdmissionService } from '../admission/quota-admission.service';
import { LeaseRenewer } from '../leases/lease-renewer';
import type { QuotaConsumedData } from '../../modules/accounts';
import { quotaConsumedFixture } from '#test/support/quota-consumed-fixture';
import { quotaConsumedEventId, RelaySettlementService } from './relay-settlement.service';
import { quotaConsumedData } from '../../modules/accounts';

jest.setTimeout(60_000);

/** A short lease, so an outage longer than it takes a second (production: RELAY_LEASE_MS, 60 s). */
const LEASE = 600;

function charge(requestId: string, userId: number, quota: number): QuotaConsumedData {
  return quotaConsumedFixture(requestId, userId, { quota });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await pause(25);
  }
}

/**
 * The ledger refuses appends for longer than a reservation's lease while the answered charges wait in the journal
 * (real Redis and Postgres, the charge journal on, a 600 ms lease). Meanwhile the worker's sweep runs all the time:
 * it must not free the reservation of a charge that is not in the ledger yet (admission would under-hold the user's
 * quota for the rest of the outage). Once appends succeed, each charge is in the ledger once and its reservation is
 * settled: neither held twice nor released without its settlement.
 */
describe('settlement: a ledger outage longer than the lease (real Redis and Postgres)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let redis: Redis;
  let store: EventStore;
  let keys: RedisKeys;
  let journalDir: string;
  let failing = false;
  let refused = 0;
  const closers: Array<() => Promise<unknown>> = [];

  /** The real store, except that appends fail while `failing` (as they do while Postgres is unreachable). */
  function outageStore(): EventStore {
    const down = () => {
      refused++;
      return Promise.reject(new EventStoreUnavailableError('ledger down (test)'));
    };
    return {
      appendToStream: (...args) => (failing ? down() : store.appendToStream(...args)),
      appendMany: (...args) => (failing ? down() : store.appendMany(...args)),
      readStream: (...args) => store.readStream(...args),
      readAll: (...args) => store.readAll(...args),
      subscribeToAll: (...args) => store.subscribeToAll(...args),
      headPosition: () => store.headPosition(),
      close: async () => undefined,
      atomicAppendMany: store.atomicAppendMany,
    };
  }

  /** An admission and a journalling settlement (the api role), as one gateway process has them. */
  async function gateway(blocks: boolean) {
    const admission = new QuotaAdmissionService(redis, keys, dataSource, store, { blocks, leaseMs: LEASE });
    const config = {
      ...CONFIG_DEFAULTS,
      roles: ['api'],
      DATA_DIR: journalDir,
      DATABASE_URL: database.url,
      REDIS_PREFIX: keys.prefix,
    } as unknown as AppConfig;
    const settlement = new RelaySettlementService(outageStore(), admission, config);
    await settlement.onModuleInit();
    closers.push(
      () => settlement.onModuleDestroy(),
      () => admission.onModuleDestroy(),
    );
    // The pipeline's own renewal while a request runs (relay-pipeline.service.ts run()): a third of the lease.
    const pipelineLeases = new LeaseRenewer(
      (requestId, userId) => admission.renew({ requestId, userId, leaseMs: LEASE }),
      Math.floor(LEASE / 3),
    );
    return { admission, settlement, pipelineLeases };
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await new DataSource(dataSourceOptions(database.url)).initialize();
    redis = new Redis(testRedisUrl());
    store = await createEventStore({ DATABASE_URL: database.url, EVENTSTORE_URL: undefined });
    keys = new RedisKeys({ REDIS_PREFIX: testRedisPrefix() } as AppConfig);
    journalDir = mkdtempSync(join(tmpdir(), 'tg-outage-'));
  });
  afterEach(() => {
    failing = false;
  });
  afterAll(async () => {
    failing = false;
    for (const close of closers) await close().catch(() => undefined);
    await store.close();
    await dataSource.destroy();
    redis.disconnect();
    await database.drop();
    rmSync(journalDir, { recursive: true, force: true });
  });

  /** The balance projections are at the ledger head: a swept reservation would be forgotten at once. */
  async function setProjected(userId: number, quota: number) {
    const position = await store.headPosition();
    await dataSource.query(
      `INSERT INTO account_balances (user_id, quota, used_quota, request_count, aff_count, aff_quota, aff_history_quota, revision)
       VALUES ($1, $2, 0, 0, 0, 0, 0, 0) ON CONFLICT (user_id) DO UPDATE SET quota = $2`,
      [userId, quota],
    );
    for (const name of ['account-balances', 'token-balances']) {
      await dataSource.query(
        `INSERT INTO projection_checkpoints (name, position) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET position = $2`,
        [name, position],
      );
    }
  }

  async function charged(userId: number, requestId: string): Promise<Array<{ id: string; position: number }>> {
    const events = await store.readStream(accountStream(userId));
    return events
      .filter((event) => event.type === 'QuotaConsumed' && quotaConsumedData(event).requestId === requestId)
      .map((event) => ({ id: event.id, position: event.position }));
  }

  const reservations = (userId: number) => redis.hgetall(keys.key(`{u:${userId}}:acct:resv`));
  const settledEntries = (userId: number) => redis.zrange(keys.key(`{u:${userId}}:acct:settled`), 0, -1, 'WITHSCORES');

  /**
   * Sweeps (as the worker does every few seconds) for `ms`, checking the user's available quota after each.
   * `beforeSweep` runs first in each sweep, as LeaseSweeper.sweep runs the journal recovery before the expiry pass.
   */
  async function sweepThroughOutage(
    admission: QuotaAdmissionService,
    userId: number,
    ms: number,
    expected: number,
    { midway, beforeSweep }: { midway?: () => Promise<void>; beforeSweep?: () => Promise<unknown> } = {},
  ) {
    const seen = new Set<number>();
    const started = Date.now();
    let midwayDone = false;
    while (Date.now() - started < ms) {
      await beforeSweep?.();
      await admission.sweepExpired();
      seen.add((await admission.available(userId)).user);
      if (midway && !midwayDone && Date.now() - started > ms / 2) {
        midwayDone = true;
        await midway();
      }
      await pause(40);
    }
    expect([...seen]).toEqual([expected]);
  }

  /** The answer ends while the ledger refuses appends: the charge goes to the journal and waits there. */
  async function settleWhileDown(settlement: RelaySettlementService, requestId: string, userId: number, reserved: unknown) {
    failing = true;
    await settlement.settle({
      data: charge(requestId, userId, 60),
      userRole: 1,
      clientIp: '127.0.0.1',
      reservedTokenId: null,
      reservation: (reserved as { reservation: AdmittedBy }).reservation,
    });
  }

  /** The charge is in the ledger exactly once, and admission moved its 60 into the settled set at its position. */
  async function expectChargedOnce(userId: number, requestId: string) {
    const events = await charged(userId, requestId);
    expect(events).toEqual([{ id: quotaConsumedEventId(requestId), position: expect.any(Number) }]);
    expect(await settledEntries(userId)).toEqual([`${requestId}:60`, String(events[0].position)]);
  }

  it("a request's own reservation: held through the outage, then settled once the charge is in the ledger", async () => {
    const userId = 21;
    const requestId = 'user-21-req';
    const { admission, settlement, pipelineLeases } = await gateway(false);
    await setProjected(userId, 1000);

    const reserved = await admission.reserve({ requestId, userId, tokenId: null, amount: 100, leaseMs: LEASE });
    expect(reserved).toMatchObject({ ok: true, reservation: { id: requestId, kind: 'request' } });
    // The request runs longer than a lease: the pipeline renews it. Then the answer ends with the ledger down.
    pipelineLeases.hold(requestId, userId);
    await pause(LEASE + 100);
    await settleWhileDown(settlement, requestId, userId, reserved);
    pipelineLeases.release(requestId); // run()'s finally: the pipeline's renewal ends with the answer
    expect(settlement.unshipped).toBe(1);

    // Three leases of outage, swept all along: the 100 reserved stay held (the charge, 60, is inside it).
    await sweepThroughOutage(admission, userId, 3 * LEASE, 900);
    expect(refused).toBeGreaterThan(1);
    expect(await reservations(userId)).toEqual({ [requestId]: '100' });
    expect(settlement.unshipped).toBe(1);
    expect(await charged(userId, requestId)).toEqual([]);

    // The ledger is back: the retried append commits once and admission settles the reservation.
    failing = false;
    await eventually(async () => settlement.unshipped === 0 && Object.keys(await reservations(userId)).length === 0);
    await expectChargedOnce(userId, requestId);
    expect((await admission.available(userId)).user).toBe(940);
    // Nothing is left to renew or to expire: later sweeps change nothing.
    await pause(LEASE + 50);
    expect(await admission.sweepExpired()).toBe(0);
    expect((await admission.available(userId)).user).toBe(940);
  });

  it("a quota block's share: the block keeps the charge and its lease through the outage, even when it drains", async () => {
    const userId = 31;
    const requestId = 'user-31-req';
    const { admission, settlement } = await gateway(true);
    await setProjected(userId, 1_000_000);

    // The first request reserves on its own and makes a block for the next ones.
    const first = await admission.reserve({ requestId: 'user-31-first', userId, tokenId: null, amount: 100, leaseMs: LEASE });
    expect(first).toMatchObject({ ok: true, reservation: { kind: 'request' } });
    await admission.release({ requestId: 'user-31-first', userId, tokenId: null });
    await eventually(() => admission.quotaBlocks.some((block) => block.userId === userId && block.size > 0));
    const reserved = await admission.reserve({ requestId, userId, tokenId: null, amount: 100, leaseMs: LEASE });
    expect(reserved).toMatchObject({ ok: true, reservation: { kind: 'block' } });
    const blockId = (reserved as { reservation: AdmittedBy }).reservation.id;

    await settleWhileDown(settlement, requestId, userId, reserved);
    admission.charged(requestId, 60); // as the pipeline does once settle resolved

    // Midway, a request larger than the balance is refused: the process first gives its blocks' free capacity back
    // (the block drains), but the unshipped charge stays held under the block, whose lease is still renewed.
    await sweepThroughOutage(admission, userId, 3 * LEASE, 1_000_000 - 60, {
      midway: async () => {
        expect(
          await admission.reserve({ requestId: 'user-31-huge', userId, tokenId: null, amount: 2_000_000, leaseMs: LEASE }),
        ).toMatchObject({ ok: false });
      },
    });
    expect(await reservations(userId)).toEqual({ [blockId]: '60' });
    expect(admission.quotaBlocks.filter((block) => block.id === blockId)).toEqual([
      expect.objectContaining({ size: 60, used: 60, draining: true }),
    ]);
    expect(settlement.unshipped).toBe(1);
    expect(await charged(userId, requestId)).toEqual([]);

    failing = false;
    await eventually(async () => settlement.unshipped === 0 && Object.keys(await reservations(userId)).length === 0);
    await expectChargedOnce(userId, requestId);
    expect(admission.quotaBlocks.filter((block) => block.userId === userId)).toEqual([]);
    expect((await admission.available(userId)).user).toBe(1_000_000 - 60);
    await pause(LEASE + 50);
    await admission.sweepExpired();
    expect((await admission.available(userId)).user).toBe(1_000_000 - 60);
  });

  it('drain() returns once the charges are in, and its 10 s deadline does not outlive it', async () => {
    const userId = 31;
    const requestId = 'user-31-req';
    const { admission, settlement } = await gateway(false);
    await setProjected(userId, 1000);
    const reserved = await admission.reserve({ requestId, userId, tokenId: null, amount: 100, leaseMs: LEASE });
    const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
    const before = timers();
    await settlement.settle({
      data: charge(requestId, userId, 60),
      userRole: 1,
      clientIp: '127.0.0.1',
      reservedTokenId: null,
      reservation: (reserved as { reservation: AdmittedBy }).reservation,
    });
    const started = Date.now();
    await settlement.drain(10_000); // the charge is on its way to the ledger (group commit's linger)
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(settlement.unshipped).toBe(0);
    await eventually(async () => (await settledEntries(userId)).length > 0);
    await expectChargedOnce(userId, requestId);
    // The deadline's timer was cleared: a stopping process is not held for the rest of the 10 s.
    expect(timers()).toBeLessThanOrEqual(before);
  });

  it("a dead gateway's journalled charge: held through a failing recovery, then shipped and settled once", async () => {
    const userId = 41;
    const requestId = 'user-41-req';
    const dead = await gateway(false);
    await setProjected(userId, 1000);

    const reserved = await dead.admission.reserve({ requestId, userId, tokenId: null, amount: 100, leaseMs: LEASE });
    expect(reserved).toMatchObject({ ok: true, reservation: { id: requestId, kind: 'request' } });
    await settleWhileDown(dead.settlement, requestId, userId, reserved);
    // The gateway stops with the charge unshipped (as after a kill: its journal stays, its owner lock is free, nothing
    // renews its leases any more).
    await dead.settlement.onModuleDestroy();
    await dead.admission.onModuleDestroy();

    // A worker (lease sweeper + journal recovery) sweeps through three leases of outage, as LeaseSweeper.sweep does:
    // recovery first (it fails: appends are refused), then the expiry pass. The reservation must stay held.
    const worker = new QuotaAdmissionService(redis, keys, dataSource, store, { blocks: false, leaseMs: LEASE });
    const config = {
      ...CONFIG_DEFAULTS,
      roles: ['worker'],
      DATA_DIR: journalDir,
      DATABASE_URL: database.url,
      REDIS_PREFIX: keys.prefix,
    } as unknown as AppConfig;
    const recovery = new RelaySettlementService(outageStore(), worker, config);
    await recovery.onModuleInit();
    closers.push(
      () => recovery.onModuleDestroy(),
      () => worker.onModuleDestroy(),
    );
    let failedRecoveries = 0;
    await sweepThroughOutage(worker, userId, 3 * LEASE, 900, {
      beforeSweep: () => recovery.recoverOrphans().catch(() => failedRecoveries++),
    });
    expect(failedRecoveries).toBeGreaterThan(2);
    expect(await reservations(userId)).toEqual({ [requestId]: '100' });
    expect(await charged(userId, requestId)).toEqual([]);

    // The ledger is back: the next recovery ships the charge once and admission settles the reservation.
    failing = false;
    expect(await recovery.recoverOrphans()).toBe(1);
    await eventually(async () => Object.keys(await reservations(userId)).length === 0);
    await expectChargedOnce(userId, requestId);
    expect((await worker.available(userId)).user).toBe(940);
    await pause(LEASE + 50);
    expect(await worker.sweepExpired()).toBe(0);
    expect((await worker.available(userId)).user).toBe(940);
  });
});
