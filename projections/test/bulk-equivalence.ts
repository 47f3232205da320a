import { DataSource } from 'typeorm';
import { compareTables } from '../../test/support/compare-tables';
import { createTestDatabase, type TestDatabase } from '../../test/support/database';
import { generateLedger } from '../../test/bench/rebuild/ledger-generator';
import { dataSourceOptions } from '../../server/src/infrastructure/database/data-source';
import type { RecordedEvent } from '../../server/src/ledger/event-store.port';
import { QUOTA_CONSUMED } from '../../server/src/modules/accounts/quota-consumed.event';
import { BulkLoad, type BulkProjection } from '../src/runner/bulk-load';
import { ProjectionApplyError } from '../src/runner/projection';
import { handWrittenLedger, LedgerBuilder, random, randomEvents } from './mixed-ledger';

/** The events a rebuild hands a projection: each once, in position order (the mixed ledgers' replays left out). */
export function asReplayed(events: readonly RecordedEvent[]): RecordedEvent[] {
  let last = 0;
  return events.filter((event) => (event.position > last ? ((last = event.position), true) : false));
}

/** `total` events of the rebuild benchmark's realistic ledger (every event type of the product), as recorded. */
export function generatedEvents(total: number, seed = 7): RecordedEvent[] {
  const events: RecordedEvent[] = [];
  for (const chunk of generateLedger(total, { chunk: 1000, seed })) {
    for (const row of chunk) {
      events.push({ ...row.event, streamId: row.streamId, revision: row.revision, position: row.position, createdAt: row.createdAt });
    }
  }
  return events;
}

/** Splits `events` into pages whose sizes `size()` draws (what readAll hands the rebuild). */
function pagesOf(events: readonly RecordedEvent[], size: () => number): RecordedEvent[][] {
  const pages: RecordedEvent[][] = [];
  for (let start = 0; start < events.length; ) pages.push(events.slice(start, (start += Math.max(1, size()))));
  return pages;
}

/** What a projection's own checks get: both databases (tables emptied before each test) and the comparison itself. */
export interface BulkEquivalenceContext {
  perEvent: DataSource;
  bulk: DataSource;
  /**
   * Applies `events` one by one on `perEvent` and bulk-loads them (in pages of `pageSize`) on `bulk`, then expects the
   * same rows: for ledgers of events the mixed ones lack (tasks, redemption edits …), built with the product's codecs.
   */
  expectSameRows(events: readonly RecordedEvent[], pageSize?: number): Promise<void>;
}

/**
 * The contract of `bulkFold` checked against `apply`: from empty tables, the same events through `apply` one by one
 * on one database and through a BulkLoad (fold in memory, COPY, barriers) on another give the same tables, row for
 * row, whatever the page sizes; an event the fold cannot decode is named and the load leaves nothing behind.
 * `expectations` adds the projection's own checks.
 */
export function describeBulkEquivalence(
  projection: BulkProjection,
  tables: string[],
  expectations: (context: BulkEquivalenceContext) => void = () => undefined,
): void {
  describe(`${projection.name}: the bulk fold equals apply one event at a time`, () => {
    const databases: TestDatabase[] = [];
    const context = {} as BulkEquivalenceContext;
    const handled = (events: readonly RecordedEvent[]) =>
      events.filter((event) => (projection.handles as readonly string[]).includes(event.type));

    const applyOneByOne = (events: readonly RecordedEvent[]) =>
      context.perEvent.transaction(async (manager) => {
        for (const event of handled(events)) await projection.apply(event, manager);
      });
    const bulkLoad = async (events: readonly RecordedEvent[], size: () => number = () => events.length) => {
      const load = await BulkLoad.start(context.bulk, projection, 0);
      try {
        for (const page of pagesOf(events, size)) await load.feed(page);
      } catch (error) {
        await load.abort();
        throw error;
      }
      await load.finish(events[events.length - 1]?.position ?? 0);
      return load;
    };
    const expectEqual = async () => {
      const comparison = await compareTables(context.perEvent, context.bulk, tables);
      expect(comparison.summary).toMatch(/^equal/);
    };
    context.expectSameRows = async (events, pageSize = 2) => {
      await applyOneByOne(events);
      await bulkLoad(events, () => pageSize);
      await expectEqual();
    };
    const rowCount = async (table: string) => {
      const [{ count }]: Array<{ count: string }> = await context.bulk.query(`SELECT count(*) AS count FROM "${table}"`);
      return Number(count);
    };

    beforeAll(async () => {
      for (const key of ['perEvent', 'bulk'] as const) {
        const database = await createTestDatabase();
        databases.push(database);
        context[key] = await new DataSource({ ...dataSourceOptions(database.url), extra: { max: 3 } }).initialize();
      }
    });
    afterAll(async () => {
      await context.perEvent?.destroy();
      await context.bulk?.destroy();
      await Promise.all(databases.map((database) => database.drop()));
    });
    beforeEach(async () => {
      const truncate = `TRUNCATE ${tables.map((table) => `"${table}"`).join(', ')}`;
      await context.perEvent.query(truncate);
      await context.bulk.query(truncate);
      await context.bulk.query(
        `INSERT INTO projection_checkpoints (name, position) VALUES ($1, 0) ON CONFLICT (name) DO UPDATE SET position = 0`,
        [projection.name],
      );
    });

    it('given the hand-written mixed ledger, then both give the same rows', async () => {
      const { prefix, batch } = handWrittenLedger();
      const events = asReplayed([...prefix, ...batch]);
      await applyOneByOne(events);
      await bulkLoad(events, () => 3);
      await expectEqual();
      // The mixed ledgers hold the charge-side events; a projection of rarer ones checks its own (expectSameRows).
      if (handled(events).length > 0) expect(await rowCount(tables[0])).toBeGreaterThan(0);
    });

    it.each([1, 2, 3, 4, 5, 6])('given random ledger %i in random page sizes, then both give the same rows', async (seed) => {
      const rand = random(seed);
      const events = asReplayed(randomEvents(new LedgerBuilder(`seed-${seed}`), rand, 400));
      await applyOneByOne(events);
      await bulkLoad(events, () => 1 + Math.floor(rand() * (seed % 2 ? 40 : 200)));
      await expectEqual();
    });

    it("given 3,000 events of the rebuild benchmark's ledger in pages of 500, then both give the same rows and the checkpoint moves", async () => {
      const events = generatedEvents(3000);
      await applyOneByOne(events);
      const load = await bulkLoad(events, () => 500);
      await expectEqual();
      expect(load.eventsApplied).toBe(handled(events).length);
      const [{ position }]: Array<{ position: string }> = await context.bulk.query(
        'SELECT position FROM projection_checkpoints WHERE name = $1',
        [projection.name],
      );
      expect(Number(position)).toBe(events[events.length - 1].position);
    });

    if ((projection.handles as readonly string[]).includes(QUOTA_CONSUMED)) {
      it('given a charge it cannot decode, then the error names that event and the load leaves the tables and checkpoint as they were', async () => {
        const builder = new LedgerBuilder('bad');
        const events = [builder.charge(1), builder.charge(2), builder.charge(1, { quota: 1.5 }), builder.charge(2)];
        const failure = await bulkLoad(events, () => 1).catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(ProjectionApplyError);
        expect((failure as ProjectionApplyError).event.position).toBe(events[2].position);
        expect((failure as ProjectionApplyError).message).toMatch(/quota/);
        for (const table of tables) expect(await rowCount(table)).toBe(0);
        const [{ position }]: Array<{ position: string }> = await context.bulk.query(
          'SELECT position FROM projection_checkpoints WHERE name = $1',
          [projection.name],
        );
        expect(Number(position)).toBe(0);
      });
    }

    expectations(context);
  });
}
