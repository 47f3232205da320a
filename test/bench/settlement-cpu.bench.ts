/**
 * CPU of this process per relay charge in the settlement, with the real Postgres ledger and Redis admission:
 *
 *   node -r ./test/support/swc-register.js test/bench/settlement-cpu.bench.ts [charges per round=20000] [rounds=5] [concurrency=50]
 *
 * What the api process pays for a charge after the answer is priced: the QuotaConsumed event, the journal line and its
 * write, the group-commit append (`ledger_append_many` through pg: the batch's JSON, the protocol, the socket write,
 * the answer's rows) and admission's SETTLE_MANY through ioredis. `concurrency` callers settle one charge after another
 * (each waits for its charge to be durable, as an answer does), like the relay at c=50; a round ends when every charge
 * is in the ledger and settled in Redis. CPU time is `process.cpuUsage` (every thread of this process: the GC helpers
 * too), so another process's load on the machine stretches the wall time, not the figure. Prints µs of CPU per charge for
 * each round (after a warm-up round) and their median. Uses a database and a Redis prefix of its own, dropped at the end:
 * Postgres and Redis from BENCH_DATABASE_URL's server and BENCH_REDIS_URL (defaults: 127.0.0.1, as `npm run bench`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { type AppConfig, CONFIG_DEFAULTS } from '#server/config/app-config';
import { dataSourceOptions } from '#server/infrastructure/database/data-source';
import { RedisKeys } from '#server/infrastructure/redis/redis-keys';
import { createEventStore } from '#server/ledger/create-event-store';
import { uuidV7 } from '#server/ledger/event-ids';
import { QuotaAdmissionService } from '#server/relay/admission/quota-admission.service';
import { RelaySettlementService } from '#server/relay/settlement/relay-settlement.service';
import { createTestDatabase, testRedisUrl } from '#test/support/database';
import { quotaConsumedFixture } from '#test/support/quota-consumed-fixture';

const perRound = Math.max(1, Number(process.argv[2] ?? 20_000));
const rounds = Math.max(1, Number(process.argv[3] ?? 5));
const concurrency = Math.max(1, Number(process.argv[4] ?? 50));
process.env.TEST_DATABASE_URL ??= process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
process.env.TEST_REDIS_URL ??= process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const USER = 1;
const TOKEN = 1;
/** The relay admits the bench's requests from a quota block: one reservation id for all of them. */
const BLOCK = uuidV7();

async function main(): Promise<void> {
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-settlement-bench-'));
  const prefix = `tollgate-settlement-bench-${process.pid}`;
  const config: AppConfig = {
    ...CONFIG_DEFAULTS,
    DATABASE_URL: database.url,
    REDIS_PREFIX: prefix,
    DATA_DIR: dataDir,
    roles: ['api'],
  } as AppConfig;
  const dataSource = await new DataSource(dataSourceOptions(database.url)).initialize();
  const redis = new Redis(testRedisUrl());
  const store = await createEventStore({ DATABASE_URL: database.url, EVENTSTORE_URL: undefined });
  const admission = new QuotaAdmissionService(redis, new RedisKeys(config), dataSource, store, { blocks: false });
  const settlement = new RelaySettlementService(store, admission, config);
  await settlement.onModuleInit();
  try {
    const results: number[] = [];
    for (let round = 0; round <= rounds; round++) {
      const started = process.cpuUsage();
      const wall = process.hrtime.bigint();
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < perRound) {
            next++;
            const requestId = uuidV7();
            await settlement.settle({
              data: quotaConsumedFixture(requestId, USER, { tokenId: TOKEN, tokenUnlimited: false }),
              userRole: 1,
              clientIp: '127.0.0.1',
              reservedTokenId: TOKEN,
              reservation: { id: BLOCK, kind: 'block' },
            });
          }
        }),
      );
      await settlement.drain(60_000);
      const used = process.cpuUsage(started);
      const seconds = Number(process.hrtime.bigint() - wall) / 1e9;
      const perCharge = (used.user + used.system) / perRound;
      if (settlement.unshipped !== 0) throw new Error(`${settlement.unshipped} charge(s) still unshipped after the round`);
      const label = round === 0 ? 'warm-up' : `round ${round}`;
      console.log(`${label}: ${perCharge.toFixed(1)} µs CPU per charge (${Math.round(perRound / seconds)} charges/s wall)`);
      if (round > 0) results.push(perCharge);
    }
    const sorted = [...results].sort((a, b) => a - b);
    const stats = settlement.groupCommitStats();
    console.log(
      `median ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} µs per charge; ${stats.appends} appends in ${stats.batches} batches (largest ${stats.largestBatch})`,
    );
  } finally {
    await settlement.onModuleDestroy();
    await admission.onModuleDestroy();
    await store.close();
    await dataSource.destroy();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
