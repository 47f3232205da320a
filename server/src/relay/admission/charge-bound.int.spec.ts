import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/app-config';
import { dataSourceOptions } from '../../infrastructure/database/data-source';
import { RedisKeys } from '../../infrastructure/redis/redis-keys';
import { createEventStore } from '../../ledger/create-event-store';
import type { EventStore } from '../../ledger/event-store.port';
import { createTestDatabase, type TestDatabase, testRedisPrefix, testRedisUrl } from '#test/support/database';
import { type AdmittedBy, QuotaAdmissionService, type ReservationResult } from './quota-admission.service';

/**
 * boundCharge (COVER): a charge above its reservation takes only what the user and the token still have available,
 * so however many requests overrun at once, the settled charges never exceed the balance (docs/ledger.md).
 */
describe('QuotaAdmissionService.boundCharge (real Redis and Postgres)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let redis: Redis;
  let store: EventStore;
  let admission: QuotaAdmissionService;
  let blocks: QuotaAdmissionService;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await new DataSource(dataSourceOptions(database.url)).initialize();
    redis = new Redis(testRedisUrl());
    store = await createEventStore({ DATABASE_URL: database.url, EVENTSTORE_URL: undefined });
    const keys = new RedisKeys({ REDIS_PREFIX: testRedisPrefix() } as AppConfig);
    admission = new QuotaAdmissionService(redis, keys, dataSource, store, { blocks: false });
    blocks = new QuotaAdmissionService(redis, keys, dataSource, store, { blocks: true });
  });
  afterAll(async () => {
    await admission.onModuleDestroy();
    await blocks.onModuleDestroy();
    await store.close();
    await dataSource.destroy();
    redis.disconnect();
    await database.drop();
  });

  async function setProjected(userId: number, quota: number, token?: { id: number; remain: number }) {
    await dataSource.query(
      `INSERT INTO account_balances (user_id, quota, used_quota, request_count, aff_count, aff_quota, aff_history_quota, revision)
       VALUES ($1, $2, 0, 0, 0, 0, 0, 0) ON CONFLICT (user_id) DO UPDATE SET quota = $2`,
      [userId, quota],
    );
    if (token) {
      await dataSource.query(
        `INSERT INTO token_balances (token_id, user_id, remain_quota, used_quota, accessed_time, position)
         VALUES ($1, $2, $3, 0, 0, 0) ON CONFLICT (token_id) DO UPDATE SET remain_quota = $3`,
        [token.id, userId, token.remain],
      );
    }
    for (const name of ['account-balances', 'token-balances']) {
      await dataSource.query(
        `INSERT INTO projection_checkpoints (name, position) VALUES ($1, 5) ON CONFLICT (name) DO UPDATE SET position = 5`,
        [name],
      );
    }
  }

  function admitted(result: ReservationResult): AdmittedBy {
    if (!result.ok) throw new Error(`refused: ${JSON.stringify(result)}`);
    return result.reservation;
  }

  /** Every charge answered, then in the ledger at positions 6, 7, …: what admission then holds as settled. */
  async function settleAll(
    service: QuotaAdmissionService,
    userId: number,
    tokenId: number | null,
    charges: Array<[AdmittedBy, string, number]>,
  ) {
    for (const [, requestId, amount] of charges) service.charged(requestId, amount);
    await service.settleMany(
      userId,
      tokenId,
      charges.map(([reservation, requestId, amount], index) => ({
        reservation: reservation.id,
        requestId,
        amount,
        position: 6 + index,
        kind: reservation.kind,
      })),
    );
  }

  it('leaves a charge within its reservation alone, and grants an overrun in full while the balance has it', async () => {
    await setProjected(101, 1_000);
    const reservation = admitted(await admission.reserve({ requestId: 'within', userId: 101, tokenId: null, amount: 40, leaseMs: 60_000 }));
    expect(reservation).toEqual({ id: 'within', kind: 'request', amount: 40 });
    expect(await admission.boundCharge({ requestId: 'within', userId: 101, tokenId: null, reservation, charge: 30 })).toBe(30);
    expect((await admission.available(101)).user).toBe(960);

    const over = admitted(await admission.reserve({ requestId: 'over', userId: 101, tokenId: null, amount: 40, leaseMs: 60_000 }));
    expect(await admission.boundCharge({ requestId: 'over', userId: 101, tokenId: null, reservation: over, charge: 300 })).toBe(300);
    // The overrun is held at once: the next admission already sees it.
    expect((await admission.available(101)).user).toBe(1_000 - 40 - 300);
    await settleAll(admission, 101, null, [
      [reservation, 'within', 30],
      [over, 'over', 300],
    ]);
    expect((await admission.available(101)).user).toBe(1_000 - 30 - 300);
  });

  it('500 concurrent overruns take exactly what was left: the charges sum to the balance, never beyond', async () => {
    await setProjected(102, 2_000);
    const results = await Promise.all(
      Array.from({ length: 500 }, (_, index) =>
        admission.reserve({ requestId: `c${index}`, userId: 102, tokenId: null, amount: 3, leaseMs: 60_000 }),
      ),
    );
    const reservations = results.flatMap((result, index) => (result.ok ? [[result.reservation, `c${index}`] as const] : []));
    expect(reservations).toHaveLength(500); // 1,500 reserved, 500 left
    // Each answer reports ten times its reservation.
    const allowed = await Promise.all(
      reservations.map(([reservation, requestId]) =>
        admission.boundCharge({ requestId, userId: 102, tokenId: null, reservation, charge: 30 }),
      ),
    );
    expect(allowed.every((amount) => amount >= 3 && amount <= 30)).toBe(true);
    expect(allowed.reduce((sum, amount) => sum + amount, 0)).toBe(2_000);
    expect((await admission.available(102)).user).toBe(0);
    expect((await admission.reserve({ requestId: 'after', userId: 102, tokenId: null, amount: 1, leaseMs: 60_000 })).ok).toBe(false);
    await settleAll(
      admission,
      102,
      null,
      reservations.map(([reservation, requestId], index) => [reservation, requestId, allowed[index]]),
    );
    expect((await admission.available(102)).user).toBe(0);
  });

  it('a limited token bounds the overrun as the user does', async () => {
    await setProjected(103, 1_000_000, { id: 31, remain: 100 });
    const reservations = await Promise.all(
      Array.from({ length: 100 }, async (_, index) => {
        const result = await admission.reserve({ requestId: `t${index}`, userId: 103, tokenId: 31, amount: 2, leaseMs: 60_000 });
        return [result, `t${index}`] as const;
      }),
    );
    const admittedOnes = reservations.filter(([result]) => result.ok).map(([result, requestId]) => [admitted(result), requestId] as const);
    expect(admittedOnes).toHaveLength(50);
    const allowed = await Promise.all(
      admittedOnes.map(([reservation, requestId]) =>
        admission.boundCharge({ requestId, userId: 103, tokenId: 31, reservation, charge: 20 }),
      ),
    );
    expect(allowed.reduce((sum, amount) => sum + amount, 0)).toBe(100);
    expect(await admission.available(103, 31)).toEqual({ user: 1_000_000 - 100, token: 0 });
  });

  it('grants nothing to a reservation that is gone (released, or retired by the lease sweep)', async () => {
    await setProjected(104, 1_000);
    const reservation = admitted(await admission.reserve({ requestId: 'gone', userId: 104, tokenId: null, amount: 10, leaseMs: 60_000 }));
    await admission.release({ requestId: 'gone', userId: 104, tokenId: null });
    expect(await admission.boundCharge({ requestId: 'gone', userId: 104, tokenId: null, reservation, charge: 50 })).toBe(10);
    expect((await admission.available(104)).user).toBe(1_000);
  });

  it('a request admitted from a quota block takes the block’s free capacity first, then Redis, and the mirror stays exact', async () => {
    await setProjected(105, 100_000);
    admitted(await blocks.reserve({ requestId: 'b-first', userId: 105, tokenId: null, amount: 100, leaseMs: 60_000 }));
    await new Promise((resolve) => setTimeout(resolve, 50)); // the block's grow (background)
    const [block] = blocks.quotaBlocks.filter((candidate) => candidate.userId === 105);
    const reservation = admitted(await blocks.reserve({ requestId: 'b-over', userId: 105, tokenId: null, amount: 100, leaseMs: 60_000 }));
    expect(reservation).toMatchObject({ id: block.id, kind: 'block', amount: 100 });
    const free = block.size - block.used;
    // More than the block's free capacity: the rest comes from Redis (COVER grows the block's reservation).
    const charge = 100 + free + 5_000;
    expect(await blocks.boundCharge({ requestId: 'b-over', userId: 105, tokenId: null, reservation, charge })).toBe(charge);
    expect(block.size - block.used).toBe(0);
    await settleAll(blocks, 105, null, [[reservation, 'b-over', charge]]);
    await blocks.release({ requestId: 'b-first', userId: 105, tokenId: null });
    // This process's view (Redis plus its block's free capacity) is the balance less the one charge.
    expect((await blocks.available(105)).user).toBe(100_000 - charge);
  });
});
