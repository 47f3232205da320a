import { MidjourneyProxyFake } from '../fakes/upstreams/midjourney-proxy-fake';
import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { SunoApiFake } from '../fakes/upstreams/suno-api-fake';
import { createTestApp, type TestApp } from '../support/app';
import { type PrivateRedis, startPrivateRedis } from '../support/private-services';
import { admission, chargesOf, createChannel, listen, routable, userWithToken } from './relay-support';
import { taskRelayCall } from './task-support';
import { balanceRow, dataSource, projected, rootCaller } from './users-support';

jest.setTimeout(120_000);

const WAIT_MS = 1500;

/**
 * RELAY_ADMISSION_REDIS_WAIT_MS: with admission's Redis down, a relay request that needs Redis to be admitted waits
 * at most that long, then answers 503 in the relay's error shape (Midjourney and Suno submits: in their own), with nothing
 * charged, reserved or sent upstream.
 * A request admitted from a quota block the process holds still answers at once, and an outage shorter than the wait
 * only delays a request. The app runs on a private redis-server, killed and restarted here.
 */
describe('relay admission while Redis is away', () => {
  const upstream = new OpenAIUpstreamFake();
  const proxy = new MidjourneyProxyFake();
  const sunoApi = new SunoApiFake();
  let redis: PrivateRedis;
  let target: TestApp;
  let origin: string;
  /** Holds a quota block after its warm-up. */
  let blockUser: Awaited<ReturnType<typeof userWithToken>>;
  /** Asks max_tokens too large for a block: every request of theirs reserves in Redis. */
  let redisUser: Awaited<ReturnType<typeof userWithToken>>;
  /** Submits Midjourney and Suno tasks (50,000 a task: a balance too small for a block). */
  let mjUser: Awaited<ReturnType<typeof userWithToken>>;

  const chat = (key: string, maxTokens?: number) =>
    fetch(`${origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'Hello' }], max_tokens: maxTokens }),
    });
  const timed = async (answer: Promise<Response>) => {
    const started = Date.now();
    const response = await answer;
    const text = await response.text();
    return { response, text, elapsed: Date.now() - started, requestId: response.headers.get('x-oneapi-request-id')! };
  };
  const tokenRemain = async (tokenId: number) =>
    Number((await dataSource(target).query('SELECT remain_quota FROM token_balances WHERE token_id = $1', [tokenId]))[0].remain_quota);

  beforeAll(async () => {
    await upstream.start();
    await proxy.start();
    await sunoApi.start();
    redis = await startPrivateRedis();
    // No worker role: its queues (BullMQ, task pollers) are not what this spec is about, and their connections
    // through two Redis restarts made the app's close hang now and then.
    target = await createTestApp({
      roles: ['api', 'projector'],
      redisUrl: redis.url,
      env: { RELAY_ADMISSION_REDIS_WAIT_MS: String(WAIT_MS), RELAY_QUOTA_BLOCK_IDLE_MS: '600000' },
    });
    origin = (await listen(target)).replace(/\/v1$/, '');
    const root = await rootCaller(target);
    await createChannel(target, root, { type: 1, name: 'fake-openai', baseUrl: upstream.baseUrl, models: ['gpt-3.5-turbo'] });
    await createChannel(target, root, { type: 2, name: 'fake-mj', key: proxy.secret, baseUrl: proxy.baseUrl, models: ['mj_imagine'] });
    await createChannel(target, root, { type: 36, name: 'fake-suno', key: sunoApi.key, baseUrl: sunoApi.baseUrl, models: ['suno_music'] });
    blockUser = await userWithToken(target, 'blocky', 100_000_000, { unlimited_quota: false, remain_quota: 50_000_000 });
    redisUser = await userWithToken(target, 'redisy', 1_000_000, { unlimited_quota: false, remain_quota: 900_000 });
    mjUser = await userWithToken(target, 'mjuser', 300_000, { unlimited_quota: false, remain_quota: 300_000 });
    await routable(target, blockUser.key, `${origin}/v1`, 'gpt-3.5-turbo');
  });
  afterAll(async () => {
    await redis?.start(); // the app closes its connections cleanly against a live server
    await target?.close();
    await redis?.destroy();
    await upstream.close();
    await proxy.close();
    await sunoApi.close();
  });

  it('refuses with 503 after the wait, changing nothing; admits from a block at once; rides out a shorter outage', async () => {
    // Warm-up: both users' tokens and balances are known to the process; blockUser ends up holding a block.
    for (let i = 0; i < 3; i++) expect((await chat(blockUser.key)).status).toBe(200);
    expect((await chat(redisUser.key, 50_000)).status).toBe(200);
    for (let i = 0; i < 50 && !admission(target).quotaBlocks.some((b) => b.userId === blockUser.id && b.size - b.used > 0); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(admission(target).quotaBlocks.some((b) => b.userId === blockUser.id && b.size - b.used > 0)).toBe(true);
    expect(admission(target).quotaBlocks.some((b) => b.userId === redisUser.id)).toBe(false);
    await projected(target);
    const before = { balance: await balanceRow(target, redisUser.id), token: await tokenRemain(redisUser.tokenId) };
    const upstreamBefore = upstream.requests.length;
    const imagine = () =>
      taskRelayCall(`${origin}/mj/submit/imagine`, 'POST', { authorization: `Bearer ${mjUser.key}` }, { prompt: 'a cat' });
    expect((await imagine()).body.code).toBe(1); // warm-up: the token is known, the task is charged
    await projected(target);
    const music = () =>
      taskRelayCall(`${origin}/suno/submit/music`, 'POST', { authorization: `Bearer ${mjUser.key}` }, { prompt: 'a song', title: 't' });
    expect((await music()).status).toBe(200); // warm-up
    await projected(target);
    const sunoSubmits = sunoApi.submits().length;
    const mjBefore = {
      balance: await balanceRow(target, mjUser.id),
      token: await tokenRemain(mjUser.tokenId),
      submits: proxy.submits().length,
    };

    await redis.kill();
    // Admitted from the block in memory: answered at once.
    const fromBlock = await timed(chat(blockUser.key));
    expect(fromBlock.response.status).toBe(200);
    expect(fromBlock.elapsed).toBeLessThan(1000);
    // Needs Redis: refused once the wait is over, in the relay's error shape (a Midjourney submit in its own).
    const mjStarted = Date.now();
    const mjRefused = imagine().then((answer) => ({ ...answer, elapsed: Date.now() - mjStarted }));
    const sunoRefused = music().then((answer) => ({ ...answer, elapsed: Date.now() - mjStarted }));
    const refused = await timed(chat(redisUser.key, 50_000));
    expect(refused.response.status).toBe(503);
    expect(JSON.parse(refused.text)).toEqual({
      error: {
        message: `quota service is unavailable (Redis unreachable), please retry later (request id: ${refused.requestId})`,
        type: 'new_api_error',
        param: '',
        code: 'quota_service_unavailable',
      },
    });
    expect(refused.elapsed).toBeGreaterThanOrEqual(WAIT_MS - 50);
    expect(refused.elapsed).toBeLessThan(WAIT_MS + 1000);
    expect(upstream.requests.length).toBe(upstreamBefore + 1); // the block user's request only
    const mjAnswer = await mjRefused;
    expect(mjAnswer.status).toBe(503);
    expect(mjAnswer.body).toEqual({
      description: 'quota service is unavailable (Redis unreachable), please retry later',
      type: 'new_api_error',
      code: 4,
    });
    expect(mjAnswer.elapsed).toBeLessThan(WAIT_MS + 1000);
    expect(proxy.submits()).toHaveLength(mjBefore.submits);
    const sunoAnswer = await sunoRefused;
    expect(sunoAnswer.status).toBe(503);
    expect(sunoAnswer.body).toEqual({
      code: 'quota_service_unavailable',
      message: 'quota service is unavailable (Redis unreachable), please retry later',
      data: null,
    });
    expect(sunoAnswer.elapsed).toBeLessThan(WAIT_MS + 1000);
    expect(sunoApi.submits()).toHaveLength(sunoSubmits);
    expect(await balanceRow(target, mjUser.id)).toEqual(mjBefore.balance);
    expect(await tokenRemain(mjUser.tokenId)).toBe(mjBefore.token);
    expect(await balanceRow(target, redisUser.id)).toEqual(before.balance);
    expect(await tokenRemain(redisUser.tokenId)).toBe(before.token);

    // Back (empty): nothing was queued for the refused request, and nothing is charged for it.
    await redis.start();
    const after = await timed(chat(redisUser.key, 50_000)); // the connection is back
    expect(after.response.status).toBe(200);
    expect(await chargesOf(target, refused.requestId)).toEqual([]);
    const [afterCharge] = await chargesOf(target, after.requestId);
    await projected(target);
    const beforeShort = { balance: await balanceRow(target, redisUser.id), token: await tokenRemain(redisUser.tokenId) };
    expect(beforeShort.balance!.quota).toBe(before.balance!.quota - Number(afterCharge.data.quota));
    expect(beforeShort.token).toBe(before.token - Number(afterCharge.data.quota));

    // An outage shorter than the wait: the request waits for Redis, then proceeds and is charged once.
    await redis.kill();
    const pending = timed(chat(redisUser.key, 50_000));
    await new Promise((resolve) => setTimeout(resolve, WAIT_MS / 3));
    await redis.start();
    const survived = await pending;
    expect(survived.response.status).toBe(200);
    const charges = await chargesOf(target, survived.requestId);
    expect(charges).toHaveLength(1);
    await projected(target);
    const charge = Number(charges[0].data.quota);
    expect(charge).toBeGreaterThan(0);
    expect((await balanceRow(target, redisUser.id))!.quota).toBe(beforeShort.balance!.quota - charge);
    expect(await tokenRemain(redisUser.tokenId)).toBe(beforeShort.token - charge);

    // Nothing of the refused request is held in Redis either: what admission sees available is the balance.
    const available = await admission(target).available(redisUser.id, redisUser.tokenId);
    expect(available.user).toBe((await balanceRow(target, redisUser.id))!.quota);
    expect(available.token).toBe(await tokenRemain(redisUser.tokenId));
  });
});
