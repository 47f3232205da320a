import { quotaConsumedEventId, RelaySettlementService } from '#server/relay/settlement/relay-settlement.service';
import type { TestApp } from '../support/app';
import { type PrivateRedisApp, startPrivateRedisApp } from './private-redis-app';
import { admission, routable, userWithToken } from './relay-support';
import { call, dataSource, rootCaller } from './users-support';

jest.setTimeout(120_000);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const UNRESPONSIVE_MS = 1_000;
const ADMISSION_WAIT_MS = 1_500;

/**
 * An api + projector process whose Redis stops answering without closing its connections (SIGSTOP: a frozen server,
 * or a partition that drops packets). Before REDIS_UNRESPONSIVE_MS, ioredis's status stayed 'ready', so none of the
 * bounds for a Redis that is away started: a request whose token this process had not cached waited for its MGET, a
 * request that needed a reservation for its RESERVE, and a shutdown for its QUIT and give-backs, all for as long as
 * Redis was frozen. Now each connection's liveness watch drops it after REDIS_UNRESPONSIVE_MS without an answer to a
 * PING, and the gateway behaves as with a Redis that is away.
 */
describe('api and projector while Redis is frozen', () => {
  let app: PrivateRedisApp;
  let target: TestApp;
  let closed = false;
  let holder: Awaited<ReturnType<typeof userWithToken>>;
  let newcomer: Awaited<ReturnType<typeof userWithToken>>;
  /** Asks max_tokens too large for a block: every request of theirs reserves in Redis (RESERVE). */
  let reserver: Awaited<ReturnType<typeof userWithToken>>;

  const chat = (key: string, maxTokens?: number) => app.chat(key, maxTokens);
  /** The answer's status, body and time, or 'no answer' after `limitMs` (what the old code gave). */
  const timed = async (request: () => Promise<Response>, limitMs = 15_000) => {
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      request().then(async (answer) => ({
        status: answer.status,
        body: await answer.text(),
        id: answer.headers.get('x-oneapi-request-id'),
      })),
      new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), limitMs))),
    ]);
    clearTimeout(timer);
    return { outcome, ms: Date.now() - started };
  };
  const holdsBlock = () => admission(target).quotaBlocks.some((block) => block.userId === holder.id);

  beforeAll(async () => {
    app = await startPrivateRedisApp({
      REDIS_UNRESPONSIVE_MS: String(UNRESPONSIVE_MS),
      RELAY_ADMISSION_REDIS_WAIT_MS: String(ADMISSION_WAIT_MS),
    });
    target = app.target;
    holder = await userWithToken(target, 'frz-holder', 100_000_000, { unlimited_quota: false, remain_quota: 50_000_000 });
    // A user whose token this process has never authenticated and whose quota it holds no block of.
    newcomer = await userWithToken(target, 'frz-newcomer', 100_000_000, { unlimited_quota: false, remain_quota: 50_000_000 });
    reserver = await userWithToken(target, 'frz-reserve', 1_000_000, { unlimited_quota: false, remain_quota: 900_000 });
    await routable(target, holder.key, `${app.origin}/v1`, 'gpt-3.5-turbo');
  });
  afterAll(async () => {
    app?.redis.thaw();
    if (!closed) await target?.close();
    else await target.database.drop();
    await app?.release();
    // A connection closed during its ready check (reconnected to the frozen server) gets a 2 s timer from ioredis
    // (recoverFromFatalError) that outlives the app; main.ts exits anyway, jest's worker would wait for it.
    await sleep(2_100);
  });

  it('answers, refuses what needs Redis within its bounds, recovers when Redis answers again, and closes within seconds', async () => {
    for (let i = 0; i < 5; i++) expect((await chat(holder.key)).status).toBe(200);
    for (let i = 0; i < 100 && !holdsBlock(); i++) await sleep(20);
    expect(holdsBlock()).toBe(true);

    expect((await chat(reserver.key, 50_000)).status).toBe(200); // its token is now cached in this process

    app.redis.freeze();
    // Sent while the connections still said 'ready': the reserver's RESERVE (its token is cached here), the
    // newcomer's token read (this process never saw it; its admission needs a RESERVE too). Before, neither answered
    // while Redis was frozen. Now the watches drop the connections after UNRESPONSIVE_MS, the token is read from
    // Postgres, and each request waits ADMISSION_WAIT_MS for Redis before the documented 503.
    const [reserved, first] = await Promise.all([timed(() => chat(reserver.key, 50_000)), timed(() => chat(newcomer.key))]);
    for (const refused of [reserved, first]) {
      expect(refused.outcome?.status).toBe(503);
      expect(JSON.parse(refused.outcome!.body).error).toMatchObject({ code: 'quota_service_unavailable', type: 'new_api_error' });
      expect(refused.ms).toBeLessThan(UNRESPONSIVE_MS + ADMISSION_WAIT_MS + 3_000);
    }
    // Admitted from the block in memory: no Redis needed, answered at once.
    const fromBlock = await timed(() => chat(holder.key));
    expect(fromBlock.outcome?.status).toBe(200);
    expect(fromBlock.ms).toBeLessThan(1_000);
    // Once the connections are known down, a request waits for admission's bound only.
    const next = await timed(() => chat(newcomer.key));
    expect(next.outcome?.status).toBe(503);
    expect(next.ms).toBeLessThan(ADMISSION_WAIT_MS + 1_000);
    // A console write answers (it published its cache invalidation to Redis before).
    const root = await rootCaller(target);
    const write = Date.now();
    const created = await call(target, root, 'post', '/api/token/', { name: 'frozen-token', remain_quota: 100, expired_time: -1 });
    expect(created.body).toEqual({ success: true, message: '' });
    expect(Date.now() - write).toBeLessThan(3_000);

    // Thawed: the connections come back and the newcomer is admitted and charged once.
    app.redis.thaw();
    let back: Awaited<ReturnType<typeof timed>> | null = null;
    for (let i = 0; i < 50; i++) {
      back = await timed(() => chat(newcomer.key));
      if (back.outcome?.status === 200) break;
      await sleep(100);
    }
    expect(back?.outcome?.status).toBe(200);
    await target.app.get(RelaySettlementService).drain(5_000, 100);
    const charges = await dataSource(target).query(`SELECT count(*) AS n FROM events WHERE type = 'QuotaConsumed' AND event_id = $1`, [
      quotaConsumedEventId(back!.outcome!.id!),
    ]);
    expect(Number(charges[0].n)).toBe(1);

    // Frozen again, then the shutdown: within seconds, as with a Redis that is away.
    for (let i = 0; i < 100 && !holdsBlock(); i++) await sleep(20);
    expect((await chat(holder.key)).status).toBe(200);
    app.redis.freeze();
    expect((await timed(() => chat(holder.key))).outcome?.status).toBe(200);
    const closing = Date.now();
    closed = true;
    await target.app.close(); // what SIGTERM runs (main.ts), without dropping the test's database
    const took = Date.now() - closing;
    process.stdout.write(`close with Redis frozen: ${took} ms\n`);
    expect(took).toBeLessThan(UNRESPONSIVE_MS + 8_000);
  });
});
