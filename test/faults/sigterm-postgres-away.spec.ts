import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { runMigrations } from '#server/infrastructure/database/data-source';
import { quotaConsumedEventId } from '#server/relay/settlement/relay-settlement.service';
import { freePort, type PrivatePostgres, type PrivateRedis, startPrivatePostgres, startPrivateRedis } from '../support/private-services';
import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { type GatewayProcess, startGateway } from '../e2e/support/gateway-process';
import { RelayRig, waitFor } from './support/relay-rig';

jest.setTimeout(240_000);

/**
 * SIGTERM to the gateway (every role, one process) while Postgres is away: the relay answered requests whose charges
 * wait in the charge journal; the process stops at once with exit code 0 (it does not wait for a ledger it cannot
 * reach), and the next start ships those charges, each once. Then the same with Redis away as well as Postgres.
 */
describe('SIGTERM while Postgres is away (real gateway process)', () => {
  let redis: PrivateRedis;
  let postgres: PrivatePostgres;
  let pg: Client;
  let gateway: GatewayProcess | null = null;
  let env: Record<string, string>;
  const upstream = new OpenAIUpstreamFake();
  const dataDir = mkdtempSync(join(tmpdir(), 'tg-sigterm-'));
  const rig = new RelayRig(
    () => [gateway!.baseUrl],
    () => pg,
  );

  async function connectPg(): Promise<void> {
    await pg?.end().catch(() => undefined);
    pg = new Client({ connectionString: postgres.url('tollgate') });
    pg.on('error', () => undefined);
    await pg.connect();
  }
  const start = async () => {
    gateway = await startGateway({ port: await freePort(), env, timeoutMs: 120_000 });
  };
  const inLedger = async (requestIds: string[]) =>
    Number(
      (
        await pg.query(`SELECT count(*) AS n FROM events WHERE type = 'QuotaConsumed' AND event_id = ANY($1::uuid[])`, [
          requestIds.map(quotaConsumedEventId),
        ])
      ).rows[0].n,
    );

  beforeAll(async () => {
    await upstream.start();
    redis = await startPrivateRedis();
    postgres = await startPrivatePostgres();
    await runMigrations(postgres.url('tollgate'));
    await connectPg();
    env = {
      DATABASE_URL: postgres.url('tollgate'),
      REDIS_URL: redis.url,
      REDIS_PREFIX: 'sigterm',
      DATA_DIR: dataDir,
      GLOBAL_API_RATE_LIMIT: '1000000',
      GLOBAL_WEB_RATE_LIMIT: '1000000',
      CRITICAL_RATE_LIMIT: '1000000',
      LOG_LEVEL: 'warn',
    };
    await start();
    await rig.setUp(upstream.baseUrl, 1_000_000_000);
  });
  afterAll(async () => {
    await gateway?.kill().catch(() => undefined);
    await pg?.end().catch(() => undefined);
    await redis?.destroy().catch(() => undefined);
    await postgres?.destroy().catch(() => undefined);
    await upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it.each([
    ['Postgres away', false],
    ['Postgres and Redis away', true],
  ])('%s: stops within seconds with exit code 0, and the next start ships the journalled charges once', async (_name, redisToo) => {
    const user = await rig.user(redisToo ? 'both-away' : 'pg-away', 1_000_000_000);
    // Warm: the token is known and the user's quota block held, so requests are admitted without Postgres.
    for (let i = 0; i < 5; i++) expect((await rig.relay(user, false)).complete).toBe(true);
    await postgres.stop();
    if (redisToo) await redis.kill();
    const answered: string[] = [];
    for (let i = 0; i < 3; i++) {
      const relayed = await rig.relay(user, i % 2 === 1, 10_000);
      expect(relayed.complete).toBe(true);
      answered.push(relayed.requestId!);
    }
    const sent = Date.now();
    const stopped = await gateway!.stop();
    const took = Date.now() - sent;
    process.stdout.write(`SIGTERM with ${_name}: ${took} ms\n`);
    expect(stopped).toEqual({ code: 0, signal: null });
    expect(took).toBeLessThan(5_000);

    await postgres.start();
    if (redisToo) await redis.start();
    await connectPg();
    expect(await inLedger(answered)).toBe(0);
    await start();
    await waitFor(async () => (await inLedger(answered)) === 3, 'the journalled charges to be shipped by the next start', 60_000);
    const twice = await pg.query(
      `SELECT event_id FROM events WHERE type = 'QuotaConsumed' AND event_id = ANY($1::uuid[]) GROUP BY event_id HAVING count(*) > 1`,
      [answered.map(quotaConsumedEventId)],
    );
    expect(twice.rows).toEqual([]);
  });
});
