import { randomUUID } from 'node:crypto';
import { type INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DataSource, type EntityManager } from 'typeorm';
import { ReadModelProjection } from '#projections/runner/read-model-projection.decorator';
import type { Projection } from '#projections/runner/projection';
import { ProjectionsModule } from '#projections/runner/projections.module';
import { createTestDatabase, type TestDatabase, testRedisPrefix, testRedisUrl } from '#test/support/database';
import { parseConfig } from '../config/app-config';
import { InfrastructureModule } from '../infrastructure/infrastructure.module';
import { newEvent, systemActor } from '../ledger/event-envelope';
import { EVENT_STORE, type EventStore, type RecordedEvent } from '../ledger/event-store.port';
import { LedgerModule } from '../ledger/ledger.module';
import { formatRebuildProgress } from './rebuild-progress';
import { formatRebuildReport, parseRebuildArguments, rebuildProjectionsIn } from './rebuild-projections';

@ReadModelProjection()
class SampleTallyProjection implements Projection {
  readonly name = 'sample_tally';
  readonly tables = ['sample_tally'];
  readonly handles = ['Tallied'];
  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    await manager.query('INSERT INTO sample_tally (position) VALUES ($1)', [event.position]);
  }
}

describe('projections:rebuild CLI', () => {
  it('parses --only and --wait in both spellings', () => {
    expect(parseRebuildArguments([])).toEqual({ projections: undefined, waitSeconds: 15 });
    expect(parseRebuildArguments(['--only', 'balances, usage_logs', '--wait=3'])).toEqual({
      projections: ['balances', 'usage_logs'],
      waitSeconds: 3,
    });
    expect(() => parseRebuildArguments(['--wait', 'soon'])).toThrow(/--wait takes a number/);
  });

  it('formats what it did: events replayed, per-projection counts, time', () => {
    expect(
      formatRebuildReport({
        eventsReplayed: 120,
        position: 130,
        durationMs: 1534,
        projections: [
          { name: 'balances', eventsApplied: 80, rows: { balances: 12 }, bulk: false },
          { name: 'logs', eventsApplied: 100, rows: { logs: 90, log_purges: 0 }, bulk: true },
        ],
      }),
    ).toEqual([
      'rebuilt 2 projection(s): replayed 120 event(s) up to position 130 in 1.53 s',
      '  balances: 80 event(s) applied; rows: balances=12',
      '  logs: 100 event(s) applied (bulk load); rows: logs=90, log_purges=0',
    ]);
  });

  describe('against an application context', () => {
    let database: TestDatabase;
    let app: INestApplicationContext;
    beforeAll(async () => {
      database = await createTestDatabase();
      const config = {
        ...parseConfig({}),
        DATABASE_URL: database.url,
        REDIS_URL: testRedisUrl(),
        REDIS_PREFIX: testRedisPrefix(),
        roles: [],
      };
      @Module({
        imports: [InfrastructureModule.forRoot(config), LedgerModule, ProjectionsModule.forRoot({ run: false })],
        providers: [SampleTallyProjection],
      })
      class CliTestModule {}
      app = await NestFactory.createApplicationContext(CliTestModule, { logger: false });
      await app.init();
    });
    afterAll(async () => {
      await app?.close();
      await database.drop();
    });

    it('given ledger events, when rebuilding, then the table is refilled and the report printed', async () => {
      const store = app.get<EventStore>(EVENT_STORE);
      const tallied = () =>
        newEvent('Tallied', {}, { id: randomUUID(), metadata: { correlationId: 'cli', reasonCode: 'test', actor: systemActor() } });
      await store.appendToStream('tally-1', [tallied(), tallied(), tallied()]);
      const dataSource = app.get(DataSource);
      await dataSource.query('CREATE TABLE sample_tally (position bigint PRIMARY KEY)');
      await dataSource.query('INSERT INTO sample_tally (position) VALUES (999)'); // stale row a rebuild must drop

      const lines: string[] = [];
      const report = await rebuildProjectionsIn(app, { waitSeconds: 2 }, (line) => lines.push(line));
      expect(report.projections).toEqual([{ name: 'sample_tally', eventsApplied: 3, rows: { sample_tally: 3 }, bulk: false }]);
      expect(lines[0]).toBe('rebuilding all projections (waiting up to 2 s for the projector leadership)');
      expect(lines[1]).toMatch(/^rebuilt 1 projection\(s\): replayed 3 event\(s\) up to position 3 in \d+\.\d\d s$/);
      expect(lines[2]).toBe('  sample_tally: 3 event(s) applied; rows: sample_tally=3');
    });

    it('given a terminal, when rebuilding, then the progress bar is redrawn in place up to the head and the line ended before the report', async () => {
      const store = app.get<EventStore>(EVENT_STORE);
      const head = await store.headPosition();
      const output: string[] = [];
      const lines: string[] = [];
      await rebuildProjectionsIn(app, { waitSeconds: 2 }, (line) => lines.push(line), { isTTY: true, write: (text) => output.push(text) });
      expect(output[0]).toBe(`\r\x1b[2K${formatRebuildProgress({ done: 0, total: head, elapsedMs: 0 })}`);
      expect(output[output.length - 1]).toBe('\n');
      expect(output[output.length - 2]).toMatch(
        new RegExp(`^\\r\\x1b\\[2K\\[#{30}\\] 100% {2}${head}/${head} events {2}[\\d,]+ ev/s {2}0:00 left$`),
      );
      expect(lines[1]).toMatch(new RegExp(`^rebuilt 1 projection\\(s\\): replayed ${head} event\\(s\\)`));
    });

    it('given a log (no terminal), when rebuilding, then whole progress lines, the last at the head', async () => {
      const head = await app.get<EventStore>(EVENT_STORE).headPosition();
      const output: string[] = [];
      await rebuildProjectionsIn(app, { waitSeconds: 2 }, () => undefined, { isTTY: false, write: (text) => output.push(text) });
      expect(output.length).toBeGreaterThanOrEqual(2);
      expect(output.every((text) => text.endsWith('\n') && !text.includes('\r'))).toBe(true);
      expect(output[0]).toBe(`${formatRebuildProgress({ done: 0, total: head, elapsedMs: 0 })}\n`);
      expect(output[output.length - 1]).toMatch(new RegExp(`\\] 100% {2}${head}/${head} events`));
    });
  });
});
