/**
 * The projector's cost per relay charge, apply per event vs applyBatch, in plain node (as the projector runs):
 *
 *   node -r ./test/support/swc-register.js projections/test/quota-consumed-throughput.bench.ts [events=5000]
 *
 * Makes a migrated database of its own on the Postgres of TEST_DATABASE_URL (default: the local server, as the
 * tests find it) and drops it afterwards. Not part of the test suite: it takes several seconds.
 */
import { createTestDatabase } from '../../test/support/database';
import { describeMeasurement, measureQuotaConsumedThroughput, quotaConsumedProjections } from './quota-consumed-throughput';

async function main(): Promise<void> {
  const events = Number(process.argv[2] ?? 5000);
  process.env.TEST_DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
  const database = await createTestDatabase();
  try {
    const { perEvent, batched, comparison } = await measureQuotaConsumedThroughput(database.url, events);
    process.stdout.write(
      `${events} QuotaConsumed, ${perEvent.batches} batches of up to 500, ${quotaConsumedProjections().length} projections:\n`,
    );
    process.stdout.write(`${describeMeasurement(perEvent)}\n${describeMeasurement(batched)}\n`);
    process.stdout.write(`tables: ${comparison.summary}\n`);
    if (!comparison.equal) process.exitCode = 1;
  } finally {
    await database.drop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
