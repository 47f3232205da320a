import { randomUUID } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { dataSourceOptions } from '#server/infrastructure/database/data-source';
import { newEvent, systemActor } from '#server/ledger/event-envelope';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { PostgresEventStore } from '#server/ledger/postgres/postgres-event-store';
import { type Projection, ProjectionTimeoutError } from './projection';
import { ProjectionLagService } from './projection-lag';
import { ProjectionRegistry } from './projection-registry';
import { ProjectionRunner } from './projection-runner';
import { ProjectionWaiter } from './projection-waiter';

/** A sample read model whose apply can be held back, to observe a waiter that must not resolve early. */
class GreetingsProjection implements Projection {
  readonly name = 'sample_greetings';
  readonly tables = ['sample_greetings'];
  readonly handles = ['Greeted'];
  gate: Promise<void> = Promise.resolve();
  async apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    await this.gate;
    await manager.query('INSERT INTO sample_greetings (position, name) VALUES ($1, $2)', [event.position, event.data.name]);
  }
}

const greeted = (name: string) =>
  newEvent('Greeted', { name }, { id: randomUUID(), metadata: { correlationId: name, reasonCode: 'test', actor: systemActor() } });

describe('ProjectionWaiter', () => {
  let database: TestDatabase;
  let store: PostgresEventStore;
  let apiDataSource: DataSource;
  let projectorDataSource: DataSource;
  let projection: GreetingsProjection;
  let runner: ProjectionRunner;
  let apiWaiter: ProjectionWaiter;

  beforeAll(async () => {
    database = await createTestDatabase();
    store = await PostgresEventStore.connect({ connectionString: database.url, pollIntervalMs: 100 });
    // Two data sources stand for two processes: the api role waits, the projector role applies.
    apiDataSource = await new DataSource(dataSourceOptions(database.url)).initialize();
    projectorDataSource = await new DataSource(dataSourceOptions(database.url)).initialize();
    await apiDataSource.query('CREATE TABLE sample_greetings (position bigint PRIMARY KEY, name text NOT NULL)');
    projection = new GreetingsProjection();
    runner = new ProjectionRunner({
      registry: ProjectionRegistry.of([projection]),
      store,
      dataSource: projectorDataSource,
      databaseUrl: database.url,
      options: { lingerMs: 5, leadershipPollMs: 100 },
    });
    runner.start();
    apiWaiter = new ProjectionWaiter(ProjectionRegistry.of([new GreetingsProjection()]), apiDataSource, {
      pollIntervalMs: 20,
      defaultTimeoutMs: 5000,
    });
  });
  afterAll(async () => {
    apiWaiter.close();
    await runner.stop();
    await store.close();
    await apiDataSource.destroy();
    await projectorDataSource.destroy();
    await database.drop();
  });

  it('given a write, when the api process waits for its position, then the row is readable as soon as it resolves', async () => {
    const { position } = await store.appendToStream('greetings-1', [greeted('ada')]);
    await apiWaiter.waitFor(position);
    const rows = await apiDataSource.query('SELECT name FROM sample_greetings WHERE position = $1', [position]);
    expect(rows).toEqual([{ name: 'ada' }]);
  });

  it('given a projection held back, when waiting, then it does not resolve before the write is applied', async () => {
    let release!: () => void;
    projection.gate = new Promise<void>((resolve) => (release = resolve));
    const { position } = await store.appendToStream('greetings-2', [greeted('grace')]);
    let resolved = false;
    const waiting = apiWaiter.waitFor(position).then(() => (resolved = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(resolved).toBe(false);
    release();
    await waiting;
    expect(await apiDataSource.query('SELECT name FROM sample_greetings WHERE position = $1', [position])).toEqual([{ name: 'grace' }]);
  });

  it('given a position the ledger never reaches, when waiting with a timeout, then it rejects after about that time', async () => {
    const head = await store.headPosition();
    const started = Date.now();
    const error = await apiWaiter.waitFor(head + 1000, 150).catch((caught: unknown) => caught);
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(ProjectionTimeoutError);
    expect(error).toMatchObject({ position: head + 1000, reached: head, code: 'projection_timeout' });
    expect(elapsed).toBeGreaterThanOrEqual(140);
    expect(elapsed).toBeLessThan(3000); // the given 150 ms, not the 5 s default (slack for a loaded machine)
  });

  it('given many concurrent waiters, when the projection catches up, then one shared poll resolves them all', async () => {
    const positions = [];
    for (let i = 0; i < 20; i++) positions.push((await store.appendToStream(`greetings-m${i}`, [greeted(`n${i}`)])).position);
    await Promise.all(positions.map((position) => apiWaiter.waitFor(position)));
    const [{ count }] = await apiDataSource.query('SELECT count(*)::int AS count FROM sample_greetings');
    expect(count).toBeGreaterThanOrEqual(22);
  });

  it('given nothing to wait for, then position 0 resolves at once', async () => {
    await expect(apiWaiter.waitFor(0, 1)).resolves.toBeUndefined();
  });

  it('given a caught-up projector, when asking for lag, then it reports zero and names the leader', async () => {
    const { position } = await store.appendToStream('greetings-lag', [greeted('lin')]);
    await apiWaiter.waitFor(position);
    const lag = await new ProjectionLagService(ProjectionRegistry.of([new GreetingsProjection()]), store, apiDataSource).lag();
    expect(lag.head).toBe(position);
    expect(lag.leaderPid).toEqual(expect.any(Number));
    expect(lag.projections).toEqual([
      expect.objectContaining({ name: 'sample_greetings', checkpoint: position, behind: 0, secondsBehind: 0, lastError: null }),
    ]);
  });

  it('given a stopped projector and older events, when asking for lag, then it counts positions and seconds behind', async () => {
    await runner.stop();
    const { position } = await store.appendToStream('greetings-late', [greeted('late'), greeted('later')]);
    const later = () => new Date(Date.now() + 30_000);
    const lag = await new ProjectionLagService(ProjectionRegistry.of([new GreetingsProjection()]), store, apiDataSource, later).lag();
    expect(lag.leaderPid).toBeNull();
    expect(lag.projections[0]).toMatchObject({ behind: 2, checkpoint: position - 2 });
    expect(lag.projections[0].secondsBehind).toBeGreaterThanOrEqual(29);
  });
});
