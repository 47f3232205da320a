import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { describeMeasurement, measureQuotaConsumedThroughput, quotaConsumedProjections } from '../../test/quota-consumed-throughput';

const ROOT = join(__dirname, '..', '..', '..');

/** Source files (not specs) under `dir`, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

/** The names of the registered projections (`@ReadModelProjection()` classes) whose `handles` name QUOTA_CONSUMED. */
function projectionsFoldingCharges(): string[] {
  return [join(ROOT, 'projections', 'src'), join(ROOT, 'server', 'src')]
    .flatMap(sources)
    .map((path) => readFileSync(path, 'utf8'))
    .filter((text) => text.includes('@ReadModelProjection()') && /readonly handles = \[[^\]]*QUOTA_CONSUMED/.test(text))
    .map((text) => /readonly name = '([^']+)'/.exec(text)?.[1] ?? '(unnamed)')
    .sort();
}

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

  it('measures every registered projection that folds QuotaConsumed', () => {
    const measured = quotaConsumedProjections()
      .map((projection) => projection.name)
      .sort();
    expect(projectionsFoldingCharges()).toEqual(measured);
    expect(measured).toEqual(expect.arrayContaining(['quota-data', 'statement', 'quota-reminder']));
  });

  it(`projects ${EVENTS} charges with one statement per projection and batch, to the same tables, faster`, async () => {
    const { perEvent, batched, comparison } = await measureQuotaConsumedThroughput(database.url, EVENTS);
    process.stdout.write(`\n${describeMeasurement(perEvent)}\n${describeMeasurement(batched)}\n\n`);

    expect(comparison.summary).toMatch(/^equal/);
    expect(batched.events).toBe(EVENTS);
    // Per event: several statements per charge for each of the seven projections (the statement and the reminder read
    // before they write). Batched: one per projection and batch, but two for the reminder (it reads its state, then
    // writes it back, whatever the batch holds).
    expect(perEvent.statements).toBeGreaterThan(8 * EVENTS);
    expect(batched.statements).toBe(8 * batched.batches);
    expect(batched.wallMs).toBeLessThan(perEvent.wallMs);
  });
});
