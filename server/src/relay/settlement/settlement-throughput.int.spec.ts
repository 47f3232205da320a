import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import type { AppConfig } from '../../config/app-config';
import { dataSourceOptions } from '../../infrastructure/database/data-source';
import { RedisKeys } from '../../infrastructure/redis/redis-keys';
import { createEventStore } from '../../ledger/create-event-store';
import type { EventStore } from '../../ledger/event-store.port';
import { createTestDatabase, type TestDatabase, testRedisPrefix, testRedisUrl } from '#test/support/database';
import { QuotaAdmissionService } from '../admission/quota-admission.service';
import { DEFAULT_GROUP_COMMIT, type GroupCommitOptions } from './group-commit';
import type { QuotaConsumedData } from '../../modules/accounts';
import { quotaConsumedFixture } from '#test/support/quota-consumed-fixture';
import { quotaConsumedEventId, RelaySettlementService } from './relay-settlement.service';
import { quotaConsumedData } from '../../modules/accounts';
import { chargeOfRow } from '#test/support/quota-consumed-fixture';

jest.setTimeout(120_000);

const CONCURRENCY = 50;
const PER_WORKER = 30;
const USERS = 10;

function charge(requestId: string, userId: number): QuotaConsumedData {
  return quotaConsumedFixture(requestId, userId, { tokenId: userId * 10, tokenUnlimited: false });
}

/**
 * Settlement throughput with 50 concurrent requests, group commit off (one ledger_append per charge) and on
 * (ledger_append_many batches), measured in one run on the same database, and exactly-once under both.
 */
describe('settlement group commit: throughput and exactly-once (real Postgres and Redis)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let redis: Redis;
  let store: EventStore;
  let admission: QuotaAdmissionService;
  let settlement: RelaySettlementService;
  const figures: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await new DataSource(dataSourceOptions(database.url)).initialize();
    redis = new Redis(testRedisUrl());
    store = await createEventStore({ DATABASE_URL: database.url, EVENTSTORE_URL: undefined });
    admission = new QuotaAdmissionService(redis, new RedisKeys({ REDIS_PREFIX: testRedisPrefix() } as AppConfig), dataSource, store, {
      blocks: false,
    });
    settlement = new RelaySettlementService(store, admission);
  });
  afterAll(async () => {
    if (figures.length) console.log(`settlement throughput, ${CONCURRENCY} concurrent requests:\n${figures.join('\n')}`);
    await settlement.onModuleDestroy();
    await admission.onModuleDestroy(); // its own Redis connection
    await store.close();
    await dataSource.destroy();
    redis.disconnect();
    await database.drop();
  });

  async function run(label: string, options: GroupCommitOptions): Promise<{ perSecond: number; requestIds: string[] }> {
    settlement.useGroupCommit(options);
    const requestIds: string[] = [];
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, worker) => {
        for (let i = 0; i < PER_WORKER; i++) {
          const requestId = `${label}-${worker}-${i}`;
          requestIds.push(requestId);
          await settlement.settle({
            data: charge(requestId, 1 + (worker % USERS)),
            userRole: 1,
            clientIp: '127.0.0.1',
            reservedTokenId: null,
          });
        }
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const perSecond = requestIds.length / seconds;
    const stats = settlement.groupCommitStats();
    figures.push(
      `  ${label.padEnd(14)} ${perSecond.toFixed(0).padStart(6)} settlements/s  (${requestIds.length} in ${seconds.toFixed(2)} s; ` +
        `${stats.batches} statement(s), largest batch ${stats.largestBatch})`,
    );
    return { perSecond, requestIds };
  }

  async function charged(requestIds: string[]): Promise<Map<string, number>> {
    const rows: Array<{ event_id: string; stream_id: string; data: unknown }> = await dataSource.query(
      `SELECT event_id, stream_id, data FROM events WHERE type = 'QuotaConsumed' AND event_id = ANY($1::uuid[])`,
      [requestIds.map(quotaConsumedEventId)],
    );
    const counts = new Map<string, number>();
    for (const row of rows) {
      const requestId = chargeOfRow(row).requestId;
      counts.set(requestId, (counts.get(requestId) ?? 0) + 1);
    }
    return counts;
  }

  it('charges every request exactly once, group commit off and on, and reports the throughput of each', async () => {
    // Warm-up (connections, plans), then each mode twice in alternating order.
    await run('warm-up', DEFAULT_GROUP_COMMIT);
    const off1 = await run('off (1/stmt)', { maxBatch: 1, maxInFlight: 1, lingerMs: 0 });
    const on1 = await run('group commit', DEFAULT_GROUP_COMMIT);
    const on2 = await run('group commit', DEFAULT_GROUP_COMMIT);
    const off2 = await run('off (1/stmt)', { maxBatch: 1, maxInFlight: 1, lingerMs: 0 });
    const linger = await run('linger 2 ms', { ...DEFAULT_GROUP_COMMIT, lingerMs: 2 });

    for (const { requestIds } of [off1, on1, on2, off2, linger]) {
      const counts = await charged(requestIds);
      expect(counts.size).toBe(requestIds.length);
      expect([...counts.values()].every((count) => count === 1)).toBe(true);
    }
    // Group commit batched (fewer statements than charges) and is not slower than one statement per charge.
    const stats = settlement.groupCommitStats();
    expect(stats.largestBatch).toBeGreaterThan(1);
    const off = (off1.perSecond + off2.perSecond) / 2;
    const on = (on1.perSecond + on2.perSecond) / 2;
    figures.push(`  ratio group commit / off: ${(on / off).toFixed(2)}x`);
    expect(on).toBeGreaterThan(off);
  });

  it('a charge settled again (retries racing inside one batch) appends nothing new', async () => {
    settlement.useGroupCommit(DEFAULT_GROUP_COMMIT);
    const ids = Array.from({ length: 20 }, (_, index) => `retry-${index}`);
    const first = await Promise.all(
      ids.map((id) => settlement.settle({ data: charge(id, 1), userRole: 1, clientIp: '', reservedTokenId: null })),
    );
    const head = await store.headPosition();
    // Every charge three more times at once: same event ids, in the same and in later batches.
    const again = await Promise.all(
      [...ids, ...ids, ...ids].map((id) => settlement.settle({ data: charge(id, 1), userRole: 1, clientIp: '', reservedTokenId: null })),
    );
    expect(await store.headPosition()).toBe(head);
    expect(again.map((result) => result.position)).toEqual([...first, ...first, ...first].map((result) => result.position));
    expect(first.every((result) => typeof result.position === 'number')).toBe(true);
    const events = await store.readStream('account-1');
    const ours = events.filter((event) => ids.includes(quotaConsumedData(event).requestId));
    expect(ours.map((event) => event.id).sort()).toEqual(ids.map(quotaConsumedEventId).sort());
  });
});
