import { randomUUID } from 'node:crypto';
import { Inject, type INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client } from 'pg';
import type { EntityManager } from 'typeorm';
import { createTestDatabase, type TestDatabase, testRedisPrefix, testRedisUrl } from '#test/support/database';
import { APP_CONFIG, type AppConfig, parseConfig } from '#server/config/app-config';
import { InfrastructureModule } from '#server/infrastructure/infrastructure.module';
import { newEvent, systemActor } from '#server/ledger/event-envelope';
import { EVENT_STORE, type EventStore, type RecordedEvent } from '#server/ledger/event-store.port';
import { LedgerModule } from '#server/ledger/ledger.module';
import { PostgresEventStore } from '#server/ledger/postgres/postgres-event-store';
import { metricsRegistry } from './metrics-registry';
import { holderPidQuery } from './leadership-lock';
import { type Projection, PROJECTOR_LEADER_LOCK } from './projection';
import { ProjectionLagService } from './projection-lag';
import { ProjectionRegistry } from './projection-registry';
import { ProjectionRunner } from './projection-runner';
import { ProjectionWaiter } from './projection-waiter';
import { ProjectionsModule, type ProjectionsModuleOptions } from './projections.module';
import { ReadModelProjection } from './read-model-projection.decorator';

/** A feature module's projection, registered only by being a decorated provider (and using DI like any other). */
@ReadModelProjection()
class SampleSignupsProjection implements Projection {
  readonly name = 'sample_signups';
  readonly tables = ['sample_signups'];
  readonly handles = ['SampleUserSignedUp'];
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}
  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    await manager.query('INSERT INTO sample_signups (position, name, prefix) VALUES ($1, $2, $3)', [
      event.position,
      event.data.name,
      this.config.REDIS_PREFIX,
    ]);
  }
}

@Module({ providers: [SampleSignupsProjection] })
class SampleFeatureModule {}

const signedUp = (name: string) =>
  newEvent(
    'SampleUserSignedUp',
    { name },
    { id: randomUUID(), metadata: { correlationId: name, reasonCode: 'test', actor: systemActor() } },
  );

describe('ProjectionsModule', () => {
  let database: TestDatabase;
  let config: AppConfig;

  const boot = async (
    run: boolean,
    runner: ProjectionsModuleOptions['runner'] = { lingerMs: 5, leadershipPollMs: 100 },
    appConfig: AppConfig = config,
  ): Promise<INestApplicationContext> => {
    @Module({
      imports: [InfrastructureModule.forRoot(appConfig), LedgerModule, ProjectionsModule.forRoot({ run, runner }), SampleFeatureModule],
    })
    class TestAppModule {}
    const app = await NestFactory.createApplicationContext(TestAppModule, { logger: false });
    await app.init();
    return app;
  };
  const lockHolders = async () => {
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      const [sql, parameters] = holderPidQuery(PROJECTOR_LEADER_LOCK);
      return (await client.query(sql, parameters)).rowCount;
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    config = { ...parseConfig({}), DATABASE_URL: database.url, REDIS_URL: testRedisUrl(), REDIS_PREFIX: testRedisPrefix(), roles: [] };
    const setup = new Client({ connectionString: database.url });
    await setup.connect();
    await setup.query('CREATE TABLE sample_signups (position bigint PRIMARY KEY, name text NOT NULL, prefix text NOT NULL)');
    await setup.end();
  });
  afterAll(async () => {
    await database.drop();
  });

  it('given run: true, when a feature module declares a decorated projection, then it is discovered, run, awaited and measured', async () => {
    const app = await boot(true);
    try {
      expect(app.get(ProjectionRegistry).names()).toEqual(['sample_signups']);
      const store = app.get<EventStore>(EVENT_STORE);
      expect(store).toBeInstanceOf(PostgresEventStore);

      const { position } = await store.appendToStream('sample-user-1', [signedUp('ada')]);
      await app.get(ProjectionWaiter).waitFor(position, 5000);
      const client = new Client({ connectionString: database.url });
      await client.connect();
      const { rows } = await client.query('SELECT name, prefix FROM sample_signups');
      await client.end();
      expect(rows).toEqual([{ name: 'ada', prefix: config.REDIS_PREFIX }]);

      const lag = await app.get(ProjectionLagService).lag();
      expect(lag.projections).toEqual([expect.objectContaining({ name: 'sample_signups', checkpoint: position, behind: 0 })]);
      const metrics = await metricsRegistry.metrics();
      expect(metrics).toContain(`tollgate_projection_lag_positions{projection="sample_signups"} 0`);
      expect(metrics).toContain(`tollgate_projection_checkpoint_position{projection="sample_signups"} ${position}`);
      expect(metrics).toContain('tollgate_projector_leader 1');
      expect(await lockHolders()).toBe(1);
    } finally {
      await app.close();
    }
    // A clean shutdown hands the leadership back at once (no waiting for a session timeout).
    expect(await lockHolders()).toBe(0);
    expect(await metricsRegistry.getSingleMetric('tollgate_projection_lag_positions')).toBeUndefined();
  });

  it('given run: false (api or worker role), then the runner stays idle but the waiter and rebuild are there', async () => {
    const app = await boot(false);
    try {
      const runner = app.get(ProjectionRunner);
      expect(runner.status()).toEqual({ running: false, leader: false, lastError: null });
      const store = app.get<EventStore>(EVENT_STORE);
      const { position } = await store.appendToStream('sample-user-2', [signedUp('grace')]);
      await expect(app.get(ProjectionWaiter).waitFor(position, 200)).rejects.toMatchObject({ code: 'projection_timeout' });

      const report = await runner.rebuild({ waitMs: 2000 });
      expect(report.projections).toEqual([{ name: 'sample_signups', eventsApplied: 2, rows: { sample_signups: 2 }, bulk: false }]);
      await app.get(ProjectionWaiter).waitFor(position, 1000);
    } finally {
      await app.close();
    }
  });
  it('given PROJECTOR_LINGER_MS and no linger of its own, then the runner lets a lone event wait that long before it commits', async () => {
    const app = await boot(true, { leadershipPollMs: 100 }, { ...config, PROJECTOR_LINGER_MS: 600 });
    try {
      const store = app.get<EventStore>(EVENT_STORE);
      const started = Date.now();
      const { position } = await store.appendToStream('sample-user-linger', [signedUp('lin')]);
      await app.get(ProjectionWaiter).waitFor(position, 5000);
      expect(Date.now() - started).toBeGreaterThanOrEqual(550);
    } finally {
      await app.close();
    }
  });
});
