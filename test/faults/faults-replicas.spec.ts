import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { runMigrations } from '#server/infrastructure/database/data-source';
import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { type GatewayProcess, startGateway } from '../e2e/support/gateway-process';
import { freePort, type PrivatePostgres, type PrivateRedis, startPrivatePostgres, startPrivateRedis } from '../support/private-services';
import { describeResults, RelayRig, type RelayUser, sleep, waitFor } from './support/relay-rig';
import { chargeOfRow } from '#test/support/quota-consumed-fixture';

jest.setTimeout(240_000);

const CLIENTS = 9;

/**
 * Replicas: three api processes, a worker and a projector (real child processes) on one private Postgres and one
 * private Redis, the load spread round-robin over the three api processes, spending users whose quota runs out
 * mid-load and a user whose limited token does. Every complete request is charged once, refused ones not at all,
 * the balances equal their ledger folds, and none goes below zero (no lease can expire here: 60 s leases).
 */
describe('three api processes, a worker and a projector on one database and Redis', () => {
  let redis: PrivateRedis;
  let postgres: PrivatePostgres;
  let pg: Client;
  const processes: GatewayProcess[] = [];
  const apis: GatewayProcess[] = [];
  const upstream = new OpenAIUpstreamFake();
  const dataDir = mkdtempSync(join(tmpdir(), 'tg-replicas-'));
  const rig = new RelayRig(
    () => apis.map((api) => api.baseUrl),
    () => pg,
  );

  beforeAll(async () => {
    await upstream.start();
    upstream.delayMs = 30;
    upstream.chunkDelayMs = 20;
    redis = await startPrivateRedis();
    postgres = await startPrivatePostgres();
    await runMigrations(postgres.url('tollgate'));
    pg = new Client({ connectionString: postgres.url('tollgate') });
    await pg.connect();
    const env = {
      DATABASE_URL: postgres.url('tollgate'),
      REDIS_URL: redis.url,
      REDIS_PREFIX: 'replicas',
      DATA_DIR: dataDir,
      GLOBAL_API_RATE_LIMIT: '1000000',
      GLOBAL_WEB_RATE_LIMIT: '1000000',
      CRITICAL_RATE_LIMIT: '1000000',
      READ_YOUR_WRITES_TIMEOUT_MS: '15000',
      LOG_LEVEL: 'warn',
    };
    const roles = ['api', 'api', 'api', 'worker', 'projector'] as const;
    const started = await Promise.allSettled(
      roles.map(async (role) => startGateway({ port: await freePort(), env, role, timeoutMs: 150_000 })),
    );
    for (const [index, outcome] of started.entries()) {
      if (outcome.status === 'rejected') continue;
      processes.push(outcome.value);
      if (roles[index] === 'api') apis.push(outcome.value);
    }
    const failed = started.find((outcome) => outcome.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  });

  afterAll(async () => {
    await Promise.all(processes.map((process) => process.stop().catch(() => undefined)));
    await pg?.end().catch(() => undefined);
    await redis?.destroy().catch(() => undefined);
    await postgres?.destroy().catch(() => undefined);
    await upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('charges each complete request once across the replicas, refuses the rest uncharged, and overspends nothing', async () => {
    await rig.setUp(upstream.baseUrl, 1_000_000_000);
    const probe = await rig.user('probe', 1_000_000_000);
    await waitFor(async () => (await rig.relay(probe, false)).complete, 'the channel to be routable on an api process', 20_000);
    // Every api process routes (each reloads the channel through the cache invalidation).
    for (let i = 0; i < 6; i++) await waitFor(async () => (await rig.relay(probe, i % 2 === 0)).complete, 'every replica to relay', 20_000);
    // The largest charge so far, decoded by the product's codec (a charge's stored payload is compact).
    const charged = async () => {
      const { rows } = await pg.query(`SELECT event_id, stream_id, data FROM events WHERE type = 'QuotaConsumed'`);
      return { rows: [{ quota: Math.max(0, ...rows.map((row) => chargeOfRow(row).quota)) }] };
    };
    await waitFor(async () => Number((await charged()).rows[0].quota) > 0, 'the first charge to reach the ledger');
    const charge = Number((await charged()).rows[0].quota);

    // Two users whose quota is 15 charges, one whose limited token is, and the probe with plenty.
    await rig.setQuotaForNewUser(15 * charge);
    const poor = [await rig.user('poor-a', 15 * charge), await rig.user('poor-b', 15 * charge)];
    await rig.setQuotaForNewUser(1_000_000_000);
    const limited = await rig.user('limited', 1_000_000_000, 15 * charge);
    const users: RelayUser[] = [...poor, limited, probe];

    const load = rig.load(users, CLIENTS);
    await sleep(15_000);
    const results = await load.stop();
    console.log(`replicas: ${describeResults(results)}`);
    // The spenders ran dry mid-load, and the requests they made then were refused.
    expect(results.filter((result) => result.refused && result.userId !== probe.id).length).toBeGreaterThan(0);
    expect(results.filter((result) => result.complete && result.userId === probe.id).length).toBeGreaterThan(10);
    await rig.settle(results);
    const summary = await rig.assertLedger(results, users);
    console.log(`replicas: ${JSON.stringify(summary)}`);
    for (const user of poor) {
      const { rows } = await pg.query('SELECT quota FROM account_balances WHERE user_id = $1', [user.id]);
      expect(Number(rows[0].quota)).toBeLessThan(charge); // spent down to less than one more request
    }
  });
});
