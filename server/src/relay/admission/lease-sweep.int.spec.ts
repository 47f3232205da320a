import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/app-config';
import { dataSourceOptions } from '../../infrastructure/database/data-source';
import { RedisKeys } from '../../infrastructure/redis/redis-keys';
import { createEventStore } from '../../ledger/create-event-store';
import { newEvent, systemActor } from '../../ledger/event-envelope';
import type { EventStore } from '../../ledger/event-store.port';
import { createTestDatabase, type TestDatabase, testRedisPrefix, testRedisUrl } from '#test/support/database';
import { QuotaAdmissionService } from './quota-admission.service';

/**
 * The two ways a dead request's reservation used to stay held (real Redis and Postgres):
 * - the sweeper's user index kept the *latest* lease expiry, so a user with steady traffic was never swept;
 * - a swept reservation counted until the account's base moved past the sweep's head, which only happened when
 *   another event of that account was projected: a user who sent nothing more (or could not, the entry holding
 *   all their quota) kept it forever.
 */
describe('lease sweep (real Redis and Postgres)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let redis: Redis;
  let store: EventStore;
  let admission: QuotaAdmissionService;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await new DataSource(dataSourceOptions(database.url)).initialize();
    redis = new Redis(testRedisUrl());
    store = await createEventStore({ DATABASE_URL: database.url, EVENTSTORE_URL: undefined });
    admission = new QuotaAdmissionService(redis, new RedisKeys({ REDIS_PREFIX: testRedisPrefix() } as AppConfig), dataSource, store, {
      blocks: false,
    });
  });
  afterAll(async () => {
    await admission.onModuleDestroy(); // its own Redis connection
    await store.close();
    await dataSource.destroy();
    redis.disconnect();
    await database.drop();
  });

  async function setCheckpoint(name: string, position: number) {
    await dataSource.query(
      `INSERT INTO projection_checkpoints (name, position) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET position = $2`,
      [name, position],
    );
  }

  async function setProjected(userId: number, quota: number, tokens: Array<{ id: number; remain: number }>, position: number) {
    await dataSource.query(
      `INSERT INTO account_balances (user_id, quota, used_quota, request_count, aff_count, aff_quota, aff_history_quota, revision)
       VALUES ($1, $2, 0, 0, 0, 0, 0, 0) ON CONFLICT (user_id) DO UPDATE SET quota = $2`,
      [userId, quota],
    );
    for (const token of tokens) {
      await dataSource.query(
        `INSERT INTO token_balances (token_id, user_id, remain_quota, used_quota, accessed_time, position)
         VALUES ($1, $2, $3, 0, 0, 0) ON CONFLICT (token_id) DO UPDATE SET remain_quota = $3`,
        [token.id, userId, token.remain],
      );
    }
    await setCheckpoint('account-balances', position);
    await setCheckpoint('token-balances', position);
  }

  async function appendSomething(): Promise<number> {
    const result = await store.appendToStream(`probe-${randomUUID().slice(0, 8)}`, [
      newEvent('ProbeAppended', {}, { id: randomUUID(), metadata: { correlationId: 'c', reasonCode: 'test', actor: systemActor() } }),
    ]);
    return result.position;
  }

  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('sweeps a dead lease even while the same user keeps making new, longer ones', async () => {
    await setProjected(11, 1000, [], await store.headPosition());
    await admission.reserve({ requestId: 'dead', userId: 11, tokenId: null, amount: 100, leaseMs: 1 });
    // A newer request of the same user, alive for a minute: it must not postpone the dead one's sweep.
    await admission.reserve({ requestId: 'alive', userId: 11, tokenId: null, amount: 10, leaseMs: 60_000 });
    await pause(20);
    expect(await admission.sweepExpired()).toBe(1);
    // The live one is untouched and keeps the user in the index for its own expiry.
    await admission.settle({ requestId: 'alive', userId: 11, tokenId: null, amount: 10, position: (await store.headPosition()) + 1 });
    expect(await admission.sweepExpired(Date.now() + 120_000)).toBe(0);
  });

  it('frees a swept reservation once the projections pass the sweep head, with no further event of that user', async () => {
    const position = await appendSomething();
    await setProjected(12, 100, [{ id: 120, remain: 80 }], position);
    expect(await admission.reserve({ requestId: 'crashed', userId: 12, tokenId: 120, amount: 80, leaseMs: 1 })).toMatchObject({ ok: true });
    // The process "dies" here. Something else reaches the ledger meanwhile (another user's charge, say).
    const head = await appendSomething();
    await pause(20);
    expect(await admission.sweepExpired()).toBe(1);
    // Until the projections pass `head`, the dead request might still have been charged there: still held.
    expect(await admission.available(12, 120)).toEqual({ user: 20, token: 0 });
    await admission.sweepExpired();
    expect(await admission.available(12, 120)).toEqual({ user: 20, token: 0 });
    // The projector passes the head without touching user 12 (no event of theirs): the next sweep reloads the bases.
    await setCheckpoint('account-balances', head);
    await setCheckpoint('token-balances', head);
    await admission.sweepExpired();
    expect(await admission.available(12, 120)).toEqual({ user: 100, token: 80 });
  });

  it('a swept reservation whose charge did land is counted once: the reloaded base already includes it', async () => {
    const position = await appendSomething();
    await setProjected(13, 500, [], position);
    await admission.reserve({ requestId: 'charged-then-died', userId: 13, tokenId: null, amount: 200, leaseMs: 1 });
    // It appended its charge (150) and died before telling admission.
    const head = await appendSomething();
    await pause(20);
    await admission.sweepExpired();
    expect((await admission.available(13)).user).toBe(300);
    // The projector folds the charge: balance 350 at `head`.
    await dataSource.query('UPDATE account_balances SET quota = 350 WHERE user_id = 13');
    await setCheckpoint('account-balances', head);
    await setCheckpoint('token-balances', head);
    await admission.sweepExpired();
    expect((await admission.available(13)).user).toBe(350);
  });
});
