#!/usr/bin/env node
'use strict';
/**
 * `node test/bench/pg-noise.js [--events 50] [--every-ms 10] [--seconds 20]`: another process writing to the
 * ledger of `npm run bench -- --serve`, in batches shaped like the relay's group commit (one `appendMany` of
 * `--events` appends of ~750 bytes, durability 'async', every `--every-ms`), to stream `bench-noise`, which no
 * projection folds. It is how docs/benchmark.md ("The c=1 tail is the scheduler's") shows that Postgres doing the
 * ledger's work on the same two CPUs makes the c=1 tail, whichever process asks for it. Uses the build of --serve
 * (test/bench/.work/build) and BENCH_DATABASE_URL (default: the bench database). A tool, not a test.
 */
const path = require('node:path');
const { randomUUID } = require('node:crypto');
const { parseFlags } = require('./lib/flags');

const flags = parseFlags(process.argv.slice(2), { events: 50, 'every-ms': 10, seconds: 20 });
const events = Number(flags.events);
const everyMs = Number(flags['every-ms']);
const seconds = Number(flags.seconds);
const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/tollgate_bench';
const build = path.join(__dirname, '.work', 'build', 'server', 'src', 'ledger', 'postgres', 'postgres-event-store.js');

(async () => {
  const { PostgresEventStore } = require(build);
  const store = await PostgresEventStore.connect({ connectionString: databaseUrl, listen: false, poolSize: 1 });
  // About the size of a relay charge's event (data and metadata of a QuotaConsumed).
  const data = { pad: 'x'.repeat(500), model: 'gpt-4o-mini', promptTokens: 12, completionTokens: 34 };
  const metadata = { correlationId: 'bench-noise', reasonCode: 'bench_noise', actor: { type: 'system' } };
  const end = Date.now() + seconds * 1000;
  let batches = 0;
  while (Date.now() < end) {
    const requests = Array.from({ length: events }, () => ({
      streamId: 'bench-noise',
      events: [{ id: randomUUID(), type: 'BenchNoise', data, metadata }],
      expectedRevision: 'any',
    }));
    const outcomes = await store.appendMany(requests, { durability: 'async' });
    const failed = outcomes.find((outcome) => !outcome.ok);
    if (failed) throw failed.error;
    batches++;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
  await store.close();
  console.log(`pg-noise: ${batches} batches of ${events} events in ${seconds} s`);
})().catch((error) => {
  console.error(`pg-noise: ${error.message}`);
  process.exit(1);
});
