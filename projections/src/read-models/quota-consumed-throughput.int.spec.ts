import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { describeMeasurement, measureQuotaConsumedThroughput } from '../../test/quota-consumed-throughput';

/**
 * The batched QuotaConsumed folds, end to end through the runner's batch transaction: the same tables as `apply`
 * per event, a constant number of statements per batch, and (generously: only "not slower", the machine may be
 * busy) faster. 1,000 events keep it a few seconds; the figures come from the plain-node script
 * projections/test/quota-consumed-throughput.bench.ts, since jest's sandbox slows the projector's JavaScript.
 */
describe('QuotaConsumed projection throughput: apply per event vs applyBatch', () => {
  const EVENTS = 1000;
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it(`projects ${EVENTS} charges with one statement per projection and batch, to the same tables, faster`, async () => {
    const { perEvent, batched, comparison } = await measureQuotaConsumedThroughput(database.url, EVENTS);
    process.stdout.write(`\n${describeMeasurement(perEvent)}\n${describeMeasurement(batched)}\n\n`);

    expect(comparison.summary).toMatch(/^equal/);
    expect(batched.events).toBe(EVENTS);
    // Per event: account, token, channel and (9 charges in 10) log statements for every charge. Batched: one per
    // projection and batch.
    expect(perEvent.statements).toBeGreaterThan(3 * EVENTS);
    expect(batched.statements).toBe(4 * batched.batches);
    expect(batched.wallMs).toBeLessThan(perEvent.wallMs);
  });
});
