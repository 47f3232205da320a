import { DataSource } from 'typeorm';
import { compareTables } from '../../test/support/compare-tables';
import { createTestDatabase, type TestDatabase } from '../../test/support/database';
import { dataSourceOptions } from '../../server/src/infrastructure/database/data-source';
import type { RecordedEvent } from '../../server/src/ledger/event-store.port';
import { type Projection, ProjectionEventError } from '../src/runner/projection';
import { countingStatements } from './counting-statements';
import { handWrittenLedger, LedgerBuilder, random, randomEvents } from './mixed-ledger';

export type BatchProjection = Projection & Required<Pick<Projection, 'applyBatch'>>;

/** The events the runner would hand `projection`: those of the types it handles, in order. */
export function handledBy(projection: Projection, events: readonly RecordedEvent[]): RecordedEvent[] {
  return events.filter((event) => (projection.handles as readonly string[]).includes(event.type));
}

/**
 * The contract of `applyBatch` checked against `apply`: the same events through `apply` one by one on one
 * fresh database and through `applyBatch` on another give the same tables, row for row; a run of charges costs one
 * statement; an event the batch cannot decode is named. `expectations` adds the projection's own checks.
 */
export function describeBatchEquivalence(
  projection: BatchProjection,
  tables: string[],
  expectations: (context: { perEvent: DataSource; batched: DataSource }) => void = () => undefined,
): void {
  describe(`${projection.name}: applyBatch equals apply one event at a time`, () => {
    const databases: TestDatabase[] = [];
    const context = {} as { perEvent: DataSource; batched: DataSource };
    const handled = (events: readonly RecordedEvent[]) => handledBy(projection, events);

    const applyOneByOne = (dataSource: DataSource, events: readonly RecordedEvent[]) =>
      dataSource.transaction(async (manager) => {
        for (const event of handled(events)) await projection.apply(event, manager);
      });
    const applyBatched = async (dataSource: DataSource, events: readonly RecordedEvent[], sizes: () => number = () => events.length) => {
      for (let start = 0; start < events.length; ) {
        const chunk = events.slice(start, (start += Math.max(1, sizes())));
        await dataSource.transaction((manager) => projection.applyBatch(handled(chunk), manager));
      }
    };
    const expectEqual = async () => {
      const comparison = await compareTables(context.perEvent, context.batched, tables);
      expect(comparison.summary).toMatch(/^equal/);
    };

    beforeAll(async () => {
      for (const key of ['perEvent', 'batched'] as const) {
        const database = await createTestDatabase();
        databases.push(database);
        context[key] = await new DataSource({ ...dataSourceOptions(database.url), extra: { max: 2 } }).initialize();
      }
    });
    afterAll(async () => {
      await context.perEvent?.destroy();
      await context.batched?.destroy();
      await Promise.all(databases.map((database) => database.drop()));
    });
    beforeEach(async () => {
      const truncate = `TRUNCATE ${tables.map((table) => `"${table}"`).join(', ')}`;
      await context.perEvent.query(truncate);
      await context.batched.query(truncate);
    });

    it('given the hand-written mixed batch after a prefix, then both give the same rows', async () => {
      const { prefix, batch } = handWrittenLedger();
      await applyOneByOne(context.perEvent, prefix);
      await applyOneByOne(context.batched, prefix);
      await applyOneByOne(context.perEvent, batch);
      await applyBatched(context.batched, batch);
      await expectEqual();
      for (const table of tables.slice(0, 1)) {
        const [{ count }]: Array<{ count: string }> = await context.batched.query(`SELECT count(*) AS count FROM "${table}"`);
        expect(Number(count)).toBeGreaterThan(0);
      }
    });

    it.each([1, 2, 3, 4, 5, 6])(
      'given random ledger %i in random batch sizes (with replays), then both give the same rows',
      async (seed) => {
        const rand = random(seed);
        const builder = new LedgerBuilder(`seed-${seed}`);
        const events = randomEvents(builder, rand, 400);
        await applyOneByOne(context.perEvent, events);
        await applyBatched(context.batched, events, () => 1 + Math.floor(rand() * (seed % 2 ? 40 : 200)));
        await expectEqual();
      },
    );

    it('given a batch of charges only, then it costs one statement whatever its size', async () => {
      const builder = new LedgerBuilder('charges');
      const events = randomEvents(builder, random(42), 50); // rows exist before: the batch updates some, inserts others
      await applyBatched(context.batched, events);
      const charges = Array.from({ length: 300 }, (_, i) =>
        builder.charge(1 + (i % 5), { tokenId: 100 + (i % 7), channelId: 1 + (i % 4), tokenUnlimited: i % 11 === 0, quota: i }),
      );
      await context.batched.transaction(async (manager) => {
        const counted = await countingStatements(manager);
        try {
          await projection.applyBatch(charges, manager);
        } finally {
          counted.stop();
        }
        expect(counted.statements()).toBe(1);
      });
      await applyOneByOne(context.perEvent, events);
      await applyOneByOne(context.perEvent, charges);
      await expectEqual();
    });

    it('given a charge it cannot decode in the middle of a batch, then the error names that event', async () => {
      const builder = new LedgerBuilder('bad');
      const events = [builder.charge(1), builder.charge(2), builder.charge(1, { quota: 1.5 }), builder.charge(2)];
      const failure = await context.batched
        .transaction((manager) => projection.applyBatch(events, manager))
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ProjectionEventError);
      expect((failure as ProjectionEventError).event.position).toBe(events[2].position);
      expect((failure as ProjectionEventError).message).toMatch(/quota/);
    });

    expectations(context);
  });
}
