import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/app-config';
import { dataSourceOptions } from '../../infrastructure/database/data-source';
import { RedisKeys } from '../../infrastructure/redis/redis-keys';
import { createEventStore } from '../../ledger/create-event-store';
import type { EventStore } from '../../ledger/event-store.port';
import { createTestDatabase, type TestDatabase, testRedisPrefix, testRedisUrl } from '#test/support/database';
import { QuotaAdmissionService } from './quota-admission.service';

describe('QuotaAdmissionService (real Redis and Postgres)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let redis: Redis;
  let store: EventStore;
  let admission: QuotaAdmissionService;
  let keys: RedisKeys;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await new DataSource(dataSourceOptions(database.url)).initialize();
    redis = new Redis(testRedisUrl());
    store = await createEventStore({ DATABASE_URL: database.url, EVENTSTORE_URL: undefined });
    keys = new RedisKeys({ REDIS_PREFIX: testRedisPrefix() } as AppConfig);
    // The Redis mechanics, request by request (quota blocks are covered below and in quota-blocks.spec.ts).
    admission = new QuotaAdmissionService(redis, keys, dataSource, store, { blocks: false });
  });
  afterAll(async () => {
    await admission.onModuleDestroy();
    await store.close();
    await dataSource.destroy();
    redis.disconnect();
    await database.drop();
  });

  async function setProjected(userId: number, quota: number, position: number) {
    await dataSource.query(
      `INSERT INTO account_balances (user_id, quota, used_quota, request_count, aff_count, aff_quota, aff_history_quota, revision)
       VALUES ($1, $2, 0, 0, 0, 0, 0, 0) ON CONFLICT (user_id) DO UPDATE SET quota = $2`,
      [userId, quota],
    );
    await dataSource.query(
      `INSERT INTO projection_checkpoints (name, position) VALUES ('account-balances', $1)
       ON CONFLICT (name) DO UPDATE SET position = $1`,
      [position],
    );
  }

  const reserve = (userId: number, requestId: string, amount: number, leaseMs = 60_000) =>
    admission.reserve({ requestId, userId, tokenId: null, amount, leaseMs });

  it('loads the balance from the projection on first use and refuses what is not there', async () => {
    await setProjected(1, 100, 5);
    expect(await reserve(1, 'a', 60)).toEqual({
      ok: true,
      userAvailable: 40,
      tokenAvailable: null,
      reservation: { id: 'a', kind: 'request', amount: 60 },
    });
    expect(await reserve(1, 'b', 41)).toEqual({ ok: false, reason: 'user', userAvailable: 40, tokenAvailable: null });
    expect(await reserve(1, 'a', 60)).toMatchObject({ ok: true }); // same request again: idempotent
    expect((await admission.available(1)).user).toBe(40);
  });

  it('never admits more than is there under 200 concurrent requests', async () => {
    await setProjected(2, 100, 5);
    const results = await Promise.all(Array.from({ length: 200 }, (_, index) => reserve(2, `r${index}`, 1)));
    expect(results.filter((result) => result.ok)).toHaveLength(100);
    expect((await admission.available(2)).user).toBe(0);
  });

  it('turns a reservation into a settled charge that counts until the projection includes it', async () => {
    await setProjected(3, 1000, 10);
    await reserve(3, 'req', 300);
    await admission.settle({ requestId: 'req', userId: 3, tokenId: null, amount: 120, position: 11 });
    expect((await admission.available(3)).user).toBe(880);
    // The projector commits position 11 (balance 880) and pushes the new base: no double counting.
    await admission.pushBase('account', 3, 3, 880, 11);
    expect((await admission.available(3)).user).toBe(880);
    // A stale push (older position) never moves the base back.
    await admission.pushBase('account', 3, 3, 1000, 10);
    expect((await admission.available(3)).user).toBe(880);
  });

  it('releases a failed request entirely', async () => {
    await setProjected(4, 50, 10);
    await reserve(4, 'x', 50);
    expect((await admission.available(4)).user).toBe(0);
    await admission.release({ requestId: 'x', userId: 4, tokenId: null });
    expect((await admission.available(4)).user).toBe(50);
  });

  it('keeps an expired lease held until the projection passes the head position, then frees it', async () => {
    await setProjected(5, 100, 0);
    // Something is in the ledger past the base's position: the dead request might have been charged there.
    await store.appendToStream('probe-1', [
      {
        id: randomUUID(),
        type: 'ProbeAppended',
        data: {},
        metadata: {
          correlationId: 'c',
          causationId: null,
          actor: { type: 'system' },
          clientIp: null,
          reasonCode: 'test',
          schemaVersion: 1,
        },
      },
    ]);
    await reserve(5, 'dead', 70, 1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const head = await store.headPosition();
    expect(await admission.sweepExpired()).toBeGreaterThanOrEqual(1);
    expect((await admission.available(5)).user).toBe(30);
    await admission.pushBase('account', 5, 5, 100, head + 1);
    expect((await admission.available(5)).user).toBe(100);
  });

  it('renewMany extends the leases of a user that still exist, in one call, and leaves settled ones alone', async () => {
    await setProjected(7, 1000, 5);
    await reserve(7, 'w1', 100, 50);
    await reserve(7, 'w2', 100, 50);
    await reserve(7, 'w3', 100, 50);
    await admission.settle({ requestId: 'w3', userId: 7, tokenId: null, amount: 30, position: 6 });
    expect(await admission.renewMany(7, ['w1', 'w2', 'w3', 'unknown'], 60_000)).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 80)); // past the first leases
    expect(await admission.sweepExpired()).toBe(0);
    expect((await admission.available(7)).user).toBe(1000 - 200 - 30);
    expect(await redis.zscore(keys.key('{u:7}:leases'), 'w3')).toBeNull();
    await admission.settle({ requestId: 'w1', userId: 7, tokenId: null, amount: 100, position: 7 });
    await admission.settle({ requestId: 'w2', userId: 7, tokenId: null, amount: 100, position: 8 });
  });

  it('a pushed base for a user never loaded is ignored (it is read from the database when needed)', async () => {
    await setProjected(6, 10, 3);
    await admission.pushBase('account', 6, 6, 999, 4);
    expect((await admission.available(6)).user).toBe(10);
  });

  it('stops with QUIT, twice over, and leaves no timer behind to keep the process alive', async () => {
    const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
    const own = new QuotaAdmissionService(redis, keys, dataSource, store, { blocks: false });
    await setProjected(8, 10, 3);
    expect((await own.available(8)).user).toBe(10); // its connection is up
    const before = timers();
    await own.onModuleDestroy();
    await own.onModuleDestroy(); // as a spec's cleanup after a test that stopped it already
    await new Promise((resolve) => setImmediate(resolve));
    expect(timers()).toBeLessThanOrEqual(before);
  });

  describe('with quota blocks (admission in memory between Redis grows)', () => {
    let blocks: QuotaAdmissionService;
    let other: QuotaAdmissionService;
    beforeAll(() => {
      blocks = new QuotaAdmissionService(redis, keys, dataSource, store, { blocks: true });
      other = new QuotaAdmissionService(redis, keys, dataSource, store, { blocks: true });
    });
    afterAll(async () => {
      await blocks.onModuleDestroy();
      await other.onModuleDestroy();
    });
    const reserveWith = (service: QuotaAdmissionService, userId: number, requestId: string, amount: number) =>
      service.reserve({ requestId, userId, tokenId: null, amount, leaseMs: 60_000 });

    it('admits 200 concurrent requests with quota for 100 exactly 100 times', async () => {
      await setProjected(20, 100, 5);
      const results = await Promise.all(Array.from({ length: 200 }, (_, index) => reserveWith(blocks, 20, `b${index}`, 1)));
      expect(results.filter((result) => result.ok)).toHaveLength(100);
      expect((await blocks.available(20)).user).toBe(0);
    });

    it('stays exact when the block already exists: 1 request, its block grown, then 299 at once for 200 left', async () => {
      await setProjected(24, 300, 5);
      expect(await reserveWith(blocks, 24, 'c0', 1)).toMatchObject({ ok: true, reservation: { kind: 'request' } });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(blocks.quotaBlocks.some((block) => block.userId === 24 && block.size > 0)).toBe(true);
      const results = await Promise.all(Array.from({ length: 399 }, (_, index) => reserveWith(blocks, 24, `c${index + 1}`, 1)));
      expect(results.filter((result) => result.ok)).toHaveLength(299);
      expect(results.some((result) => result.ok && result.reservation.kind === 'block')).toBe(true);
      expect((await blocks.available(24)).user).toBe(0);
    });

    it('admits from a block in memory once one is grown, and a charge moves from the block to the settled set', async () => {
      await setProjected(21, 1_000_000, 5);
      const first = await reserveWith(blocks, 21, 'first', 100);
      expect(first).toMatchObject({ ok: true, reservation: { kind: 'request' } });
      await new Promise((resolve) => setTimeout(resolve, 50)); // the block's grow (background)
      const [block] = blocks.quotaBlocks.filter((candidate) => candidate.userId === 21);
      expect(block.size).toBeGreaterThanOrEqual(800);
      const second = await reserveWith(blocks, 21, 'second', 100);
      expect(second).toMatchObject({ ok: true, reservation: { id: block.id, kind: 'block' } });
      // Answered for 60 (journaled), then in the ledger at position 6.
      blocks.charged('second', 60);
      await blocks.settleMany(
        21,
        null,
        [{ reservation: block.id, requestId: 'second', amount: 60, position: 6 }].map((charge) => ({ ...charge, kind: 'block' as const })),
      );
      await blocks.release({ requestId: 'first', userId: 21, tokenId: null });
      // Everything not charged is available again, from this process's point of view.
      expect((await blocks.available(21)).user).toBe(1_000_000 - 60);
      // Seen from Redis alone, the block's free capacity is held.
      expect((await admission.available(21)).user).toBeLessThan(1_000_000 - 60);
    });

    it('never admits more than is there across two processes with blocks', async () => {
      await setProjected(22, 300, 5);
      const results = await Promise.all(
        Array.from({ length: 400 }, (_, index) => reserveWith(index % 2 === 0 ? blocks : other, 22, `x${index}`, 1)),
      );
      const admitted = results.filter((result) => result.ok).length;
      expect(admitted).toBeLessThanOrEqual(300);
      expect(admitted).toBeGreaterThan(250); // the other process's block may hold a little until it drains
    });

    it('gives an idle block back, so Redis alone sees the whole balance again', async () => {
      await setProjected(23, 100_000, 5);
      await reserveWith(blocks, 23, 'idle-1', 10);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(blocks.quotaBlocks.some((block) => block.userId === 23 && block.size > 0)).toBe(true);
      await blocks.release({ requestId: 'idle-1', userId: 23, tokenId: null });
      const deadline = Date.now() + 5_000;
      while (blocks.quotaBlocks.some((block) => block.userId === 23) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      expect(blocks.quotaBlocks.some((block) => block.userId === 23)).toBe(false);
      expect((await admission.available(23)).user).toBe(100_000);
    });
  });
});
