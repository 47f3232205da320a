import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { runMigrations } from '#server/infrastructure/database/data-source';
import { freePort, type PrivatePostgres, type PrivateRedis, startPrivatePostgres, startPrivateRedis } from '../support/private-services';
import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { type GatewayProcess, startGateway } from '../e2e/support/gateway-process';
import { describeResults, type Relayed, RelayRig, type RelayUser, sleep, waitFor } from './support/relay-rig';
import { chargeOfRow } from '#test/support/quota-consumed-fixture';

jest.setTimeout(240_000);

const RICH = 1_000_000_000;
const CLIENTS = 8;
/** RELAY_ADMISSION_REDIS_WAIT_MS of the gateway: shorter than the 6 s Redis outage below. */
const REDIS_WAIT_MS = 3_000;

/**
 * The gateway (a real child process, every role) on a private redis-server and a private Postgres, relaying to a
 * fake upstream under a steady load of CLIENTS clients, while each service fails in turn: Redis stopped (and what
 * the relay does meanwhile), Redis wiped and restarted, Postgres stopped for 10 s, the gateway SIGKILLed. After each
 * fault: the relay recovers with no manual step, and the ledger holds exactly the charges of the complete requests.
 * The Redis and Postgres every other test file shares are never touched.
 */
describe('faults under relay load (private Redis and Postgres, real gateway process)', () => {
  let redis: PrivateRedis;
  let postgres: PrivatePostgres;
  let pg: Client;
  let gateway: GatewayProcess | null = null;
  let env: Record<string, string>;
  const upstream = new OpenAIUpstreamFake();
  const dataDir = mkdtempSync(join(tmpdir(), 'tg-faults-'));
  const rig = new RelayRig(
    () => [gateway!.baseUrl],
    () => pg,
  );
  let rich: RelayUser[];
  /** Every request of every phase, for the final check. */
  const all: Relayed[] = [];
  let charge = 0;
  let tight = 0;

  async function connectPg(): Promise<void> {
    await pg?.end().catch(() => undefined);
    pg = new Client({ connectionString: postgres.url('tollgate') });
    pg.on('error', () => undefined);
    await pg.connect();
  }

  async function restartGateway(): Promise<void> {
    gateway = await startGateway({ port: await freePort(), env, timeoutMs: 120_000 });
  }

  /**
   * Until one request relays in full: how long recovery took, with no step but waiting. The tries join `all`, so
   * settle waits for their charges too and assertLedger holds them to the same rules (the complete one charged once,
   * a refused one not at all): left out, the last try's charge could reach the ledger after settle had seen the
   * projections at the head, and the balances read one charge short of the events (a loaded machine, 2026-11-26).
   */
  async function recovered(user: RelayUser, what: string): Promise<number> {
    const started = Date.now();
    const tries: Relayed[] = [];
    try {
      await waitFor(
        async () => {
          tries.push(await rig.relay(user, false, 10_000));
          return tries[tries.length - 1].complete;
        },
        what,
        60_000,
      ).catch((error: Error) => {
        throw new Error(`${error.message}: ${describeResults(tries)}\n${gateway!.output().slice(-3000)}`);
      });
    } finally {
      all.push(...tries);
    }
    return Date.now() - started;
  }

  beforeAll(async () => {
    await upstream.start();
    upstream.delayMs = 40;
    upstream.chunkDelayMs = 30;
    redis = await startPrivateRedis();
    postgres = await startPrivatePostgres();
    await runMigrations(postgres.url('tollgate'));
    await connectPg();
    env = {
      DATABASE_URL: postgres.url('tollgate'),
      REDIS_URL: redis.url,
      REDIS_PREFIX: 'faults',
      DATA_DIR: dataDir,
      GLOBAL_API_RATE_LIMIT: '1000000',
      GLOBAL_WEB_RATE_LIMIT: '1000000',
      CRITICAL_RATE_LIMIT: '1000000',
      READ_YOUR_WRITES_TIMEOUT_MS: '15000',
      RELAY_ADMISSION_REDIS_WAIT_MS: String(REDIS_WAIT_MS),
      LOG_LEVEL: 'warn',
    };
    await restartGateway();
    await rig.setUp(upstream.baseUrl, RICH);
    rich = [await rig.user('rich-a', RICH), await rig.user('rich-b', RICH), await rig.user('rich-c', RICH, RICH / 2)];
    await waitFor(async () => (await rig.relay(rich[0], false)).complete, 'the channel to be routable', 20_000);
    // The largest charge so far, decoded by the product's codec (a charge's stored payload is compact).
    const charged = async () => {
      const { rows } = await pg.query(`SELECT event_id, stream_id, data FROM events WHERE type = 'QuotaConsumed'`);
      return { rows: [{ quota: Math.max(0, ...rows.map((row) => chargeOfRow(row).quota)) }] };
    };
    await waitFor(async () => Number((await charged()).rows[0].quota) > 0, 'the first charge to reach the ledger');
    charge = Number((await charged()).rows[0].quota);
  });

  afterAll(async () => {
    await gateway?.stop().catch(() => undefined);
    await pg?.end().catch(() => undefined);
    await redis?.destroy().catch(() => undefined);
    await postgres?.destroy().catch(() => undefined);
    await upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A user of the rich kind with a token limited to ten charges, spending with 2 of the CLIENTS clients. */
  async function tightUser(): Promise<RelayUser> {
    return rig.user(`tight-${++tight}`, RICH, 10 * charge);
  }

  it('while Redis is down: a request admitted from a quota block answers, the others are refused after the wait, charged nothing', async () => {
    await redis.kill();
    const killedAt = Date.now();
    const pending = Array.from({ length: 6 }, (_, i) => rig.relay(rich[i % 3], i % 2 === 1, 90_000));
    await sleep(6_000);
    const doneWhileDown: Relayed[] = [];
    for (const request of pending) {
      const settled = await Promise.race([request, sleep(0).then(() => null)]);
      if (settled) doneWhileDown.push(settled);
    }
    await redis.start();
    const restartedAt = Date.now();
    const away = await Promise.all(pending);
    console.log(
      `redis down 6 s: answered while down: ${describeResults(doneWhileDown)}; ` +
        `all: ${describeResults(away)}; finished at +${away.map((result) => result.startedAt + result.ms - killedAt).join(',')} ms ` +
        `(redis back at +${restartedAt - killedAt} ms)`,
    );
    // Every request is answered while Redis is down (the outage is longer than RELAY_ADMISSION_REDIS_WAIT_MS): one
    // admitted from a quota block the process holds relays; one that admission must reserve in Redis is refused with
    // 503 once the wait is over, and is charged nothing (assertLedger).
    expect(doneWhileDown).toHaveLength(away.length);
    expect(away.some((result) => result.complete)).toBe(true);
    const refused = away.filter((result) => !result.complete);
    expect(refused.length).toBeGreaterThan(0);
    for (const result of refused) {
      expect(result).toMatchObject({ status: 503, refused: true });
      expect(result.message).toContain('quota service is unavailable');
      expect(result.ms).toBeLessThan(REDIS_WAIT_MS + 1500);
    }
    const took = await recovered(rich[0], 'the relay to work again once Redis is back');
    console.log(`redis back: a new request relayed ${took} ms later`);
    all.push(...away);
    await rig.settle(all);
    await rig.assertLedger(all, rich);
  });

  it('Redis wiped, then killed and restarted, under load', async () => {
    const spender = await tightUser();
    const users = [...rich, spender];
    const load = rig.load(users, CLIENTS);
    await sleep(4_000);
    const inFlightAtWipe = load.inFlight();
    await redis.wipe();
    await sleep(3_000);
    await redis.kill();
    await sleep(1_000);
    await redis.start();
    const took = await recovered(rich[1], 'the relay to work again after the Redis restart');
    await sleep(4_000);
    const results = await load.stop();
    console.log(
      `redis wipe+restart: ${describeResults(results)}; ${inFlightAtWipe} in flight at the wipe; relaying ${took} ms after restart`,
    );
    all.push(...results);
    await rig.settle(all);
    // A loss of Redis's data forgets the reservations in flight (docs/ledger.md, outside the bound): the spender's
    // 2 clients each had at most one request in flight at the wipe and one at the kill, each charged at most its
    // reservation (one charge here), so its token can end at most 4 charges below zero.
    const summary = await rig.assertLedger(all, users, (user) => (user === spender ? -4 * charge : 0));
    const { rows } = await pg.query('SELECT remain_quota FROM token_balances WHERE token_id = $1', [spender.tokenId]);
    console.log(`redis wipe+restart: the spender's token ended at ${rows[0].remain_quota} (one charge is ${charge})`);
    expect(summary.complete).toBeGreaterThan(20);
  });

  it('Postgres stopped for 10 s under load', async () => {
    const spender = await tightUser();
    const users = [...rich, spender];
    const load = rig.load(users, CLIENTS);
    await sleep(4_000);
    await postgres.stop();
    const stoppedAt = Date.now();
    await sleep(10_000);
    const during = load.results.filter((result) => result.startedAt >= stoppedAt);
    await postgres.start();
    await connectPg();
    const took = await recovered(rich[1], 'the relay to work again after the Postgres restart');
    await sleep(4_000);
    const results = await load.stop();
    console.log(
      `postgres down 10 s: during ${describeResults(during)}; all ${describeResults(results)}; relaying ${took} ms after restart`,
    );
    all.push(...results);
    await rig.settle(all);
    await rig.assertLedger(all, users);
  });

  it('gateway SIGKILLed under load and restarted', async () => {
    const spender = await tightUser();
    const users = [...rich, spender];
    const load = rig.load(users, CLIENTS);
    await sleep(4_000);
    const inFlight = load.inFlight();
    await gateway!.kill();
    await restartGateway();
    const took = await recovered(rich[1], 'the restarted gateway to relay');
    await sleep(4_000);
    const results = await load.stop();
    console.log(`gateway SIGKILL: ${describeResults(results)}; ${inFlight} in flight at the kill; relaying ${took} ms after restart`);
    expect(results.some((result) => !result.complete && !result.refused)).toBe(true);
    all.push(...results);
    await rig.settle(all);
    await rig.assertLedger(all, users);
  });
});
