import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { metricsRegistry } from '#projections/runner/metrics-registry';
import type { Projection } from '#projections/runner/projection';
import { ProjectionLagService } from '#projections/runner/projection-lag';
import { ProjectionRegistry } from '#projections/runner/projection-registry';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { dataSourceOptions } from '../../infrastructure/database/data-source';
import type { NewEvent } from '../../ledger/event-store.port';
import { PostgresEventStore } from '../../ledger/postgres/postgres-event-store';
import { ProjectionLagReader } from './projection-lag.reader';

const projection = (name: string): Projection => ({ name, tables: [`${name}_rows`], handles: ['Pinged'], apply: async () => undefined });

const event = (): NewEvent => ({
  id: randomUUID(),
  type: 'Pinged',
  data: {},
  metadata: {
    correlationId: randomUUID(),
    causationId: null,
    actor: { type: 'system' },
    clientIp: null,
    reasonCode: 'test',
    schemaVersion: 1,
  },
});

describe('ProjectionLagReader (GET /api/status/projections and the lag gauges)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let store: PostgresEventStore;
  const registry = ProjectionRegistry.of([projection('lag_test_a'), projection('lag_test_b')]);

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await new DataSource({ ...dataSourceOptions(database.url), extra: { max: 2 } }).initialize();
    store = await PostgresEventStore.connect({ connectionString: database.url, poolSize: 2, listen: false });
    await store.appendToStream('lagtest-1', [event(), event(), event()]);
    await dataSource.query(`INSERT INTO projection_checkpoints (name, position) VALUES ('lag_test_a', 1), ('lag_test_b', 3)`);
  });
  afterAll(async () => {
    await store.close();
    await dataSource.destroy();
    await database.drop();
  });

  it('reports each projection against the ledger head, building its own lag service from the event store', async () => {
    const reader = new ProjectionLagReader(registry, dataSource, undefined, store);
    const report = await reader.report();
    expect(report.head).toBe(3);
    expect(report.projections.map(({ name, checkpoint, behind }) => ({ name, checkpoint, behind }))).toEqual([
      { name: 'lag_test_a', checkpoint: 1, behind: 2 },
      { name: 'lag_test_b', checkpoint: 3, behind: 0 },
    ]);
    expect(report.projections[0].secondsBehind).toBeGreaterThanOrEqual(0);
  });

  it('uses the runner’s own lag service when the projections module provides one', async () => {
    const provided = new ProjectionLagService(ProjectionRegistry.of([projection('lag_test_b')]), store, dataSource);
    const reader = new ProjectionLagReader(registry, dataSource, provided, store);
    expect((await reader.report()).projections.map((lag) => lag.name)).toEqual(['lag_test_b']);
  });

  it('exports the lag as Prometheus gauges while it owns the service, and removes them on shutdown', async () => {
    const reader = new ProjectionLagReader(registry, dataSource, undefined, store);
    reader.onModuleInit();
    const text = await metricsRegistry.metrics();
    expect(text).toContain('tollgate_projection_lag_positions{projection="lag_test_a"} 2');
    expect(text).toContain('tollgate_ledger_head_position 3');
    reader.onModuleDestroy();
    expect(metricsRegistry.getSingleMetric('tollgate_projection_lag_positions')).toBeUndefined();
  });

  it('says so when no event store is wired', async () => {
    const reader = new ProjectionLagReader(registry, dataSource);
    await expect(reader.report()).rejects.toMatchObject({ message: '账本未启用，无法读取投影进度' });
  });
});
