import OpenAI from 'openai';
import { rebuildProjectionsIn } from '#server/cli/rebuild-projections';
import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { createTestApp, type TestApp } from '../support/app';
import { compareTables, snapshotTables } from '../support/compare-tables';
import { chargeCount, createChannel, listen, routable, sdk, userWithToken } from './relay-support';
import { type Caller, call, dataSource, eventStore, projected, rootCaller, setOptions } from './users-support';

jest.setTimeout(120_000);

const TABLES = ['logs', 'log_purges', 'token_balances', 'channel_status', 'account_balances', 'quota_data'];

/**
 * Rebuild equals live after a mixed load: users, tokens, channels, plain and streamed requests, a failed upstream
 * (auto-disabling its channel), an admin quota edit, a token quota edit, a log purge, a channel disabled and
 * enabled again. The log, token, channel-status and balance projections replayed from position 0 equal the live
 * tables row for row.
 */
describe('relay: projections rebuilt from the ledger equal the live ones after a mixed load', () => {
  let target: TestApp;
  let baseURL: string;
  let root: Caller;
  const good = new OpenAIUpstreamFake();
  const revoked = new OpenAIUpstreamFake();

  beforeAll(async () => {
    await Promise.all([good.start(), revoked.start()]);
    good.chunkDelayMs = 5;
    target = await createTestApp();
    baseURL = await listen(target);
    root = await rootCaller(target);
  });

  afterAll(async () => {
    await target?.close();
    await Promise.all([good.close(), revoked.close()]);
  });

  async function chatLoad(clients: OpenAI[], rounds: number): Promise<void> {
    await Promise.all(
      clients.flatMap((client, index) =>
        Array.from({ length: rounds }, async (_, round) => {
          const model = (index + round) % 3 === 0 ? 'gpt-4o-mini' : 'gpt-3.5-turbo';
          if ((index + round) % 2 === 0) {
            const completion = await client.chat.completions.create({ model, messages: [{ role: 'user', content: `hi ${round}` }] });
            expect(completion.choices[0].message.content).toBe(good.reply);
          } else {
            const stream = await client.chat.completions.create({
              model,
              messages: [{ role: 'user', content: `hi ${round}` }],
              stream: true,
            });
            let text = '';
            for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
            expect(text).toBe(good.reply);
          }
        }),
      ),
    );
  }

  async function channelStatus(id: number): Promise<number | null> {
    const rows: Array<{ status: number }> = await dataSource(target).query('SELECT status FROM channel_status WHERE channel_id = $1', [id]);
    return rows[0]?.status ?? null;
  }

  async function until(condition: () => Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + 15_000;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it('replays logs, log purges, token balances, channel status and account balances to exactly the live tables', async () => {
    await setOptions(target, { AutomaticDisableChannelEnabled: 'true' });
    const main = await createChannel(target, root, {
      type: 1,
      name: 'main',
      baseUrl: good.baseUrl,
      models: ['gpt-3.5-turbo', 'gpt-4o-mini'],
    });
    const spare = await createChannel(target, root, {
      type: 1,
      name: 'spare',
      baseUrl: good.baseUrl,
      models: ['gpt-3.5-turbo'],
      priority: -1,
    });
    const broken = await createChannel(target, root, { type: 1, name: 'revoked', baseUrl: revoked.baseUrl, models: ['broken-model'] });
    await call(target, root, 'put', '/api/channel/', { id: broken, auto_ban: 1 }).expect(200);

    const alice = await userWithToken(target, 'alice', 50_000_000, { unlimited_quota: false, remain_quota: 20_000_000 });
    const bob = await userWithToken(target, 'bob', 30_000_000, { unlimited_quota: true });
    const carol = await userWithToken(target, 'carol', 10_000_000, { unlimited_quota: false, remain_quota: 5_000_000 });
    const clients = [alice, bob, carol].map((user) => sdk(baseURL, user.key));
    await routable(target, alice.key, baseURL, 'broken-model');

    // Round 1, then a second later round 2: the purge below removes round 1's rows only.
    await chatLoad(clients, 6);
    await projected(target);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const boundary = Math.floor(Date.now() / 1000);
    await new Promise((resolve) => setTimeout(resolve, 1100));

    // A failed upstream (a revoked key): the client gets the error, nothing is charged, the channel is auto-disabled.
    const before = await chargeCount(target);
    for (let i = 0; i < 2; i++) {
      revoked.next({
        status: 401,
        body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } },
      });
    }
    await expect(
      clients[0].chat.completions.create({ model: 'broken-model', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toBeInstanceOf(OpenAI.APIError);
    expect(await chargeCount(target)).toBe(before);
    await until(async () => (await channelStatus(broken)) === 3, 'the revoked channel to be auto-disabled');

    // Admin edits: a user's quota, a token's quota.
    // The account stream holds relay charges by now: the edit's `before` is the balance net of them.
    await projected(target);
    const form = (await call(target, root, 'get', `/api/user/${alice.id}`).expect(200)).body.data;
    const [{ quota: charged }]: Array<{ quota: string }> = await dataSource(target).query(
      'SELECT quota FROM account_balances WHERE user_id = $1',
      [alice.id],
    );
    expect(form.quota).toBe(Number(charged));
    expect(Number(charged)).toBeLessThan(50_000_000);
    expect(
      (await call(target, root, 'put', '/api/user/', { ...form, password: '', quota: form.quota + 1_234_567 }).expect(200)).body,
    ).toEqual({ success: true, message: '' });
    const adjusted: Array<{ data: { before: number; after: number } }> = await dataSource(target).query(
      `SELECT data FROM events WHERE stream_id = $1 AND type = 'QuotaAdjustedByAdmin'`,
      [`account-${alice.id}`],
    );
    expect(adjusted.map((event) => [event.data.before, event.data.after])).toEqual([[Number(charged), Number(charged) + 1_234_567]]);
    const tokenForm = (await call(target, carol, 'get', `/api/token/${carol.tokenId}`).expect(200)).body.data;
    expect((await call(target, carol, 'put', '/api/token/', { ...tokenForm, remain_quota: 7_000_000 }).expect(200)).body.success).toBe(
      true,
    );

    // A channel disabled and enabled again by the admin, with traffic on the spare meanwhile.
    expect((await call(target, root, 'put', '/api/channel/', { id: main, status: 2 }).expect(200)).body.success).toBe(true);
    await until(async () => (await channelStatus(main)) === 2, 'the main channel to be disabled');
    await clients[1].chat.completions.create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'via spare' }] });
    expect((await call(target, root, 'put', '/api/channel/', { id: main, status: 1 }).expect(200)).body.success).toBe(true);
    await until(async () => (await channelStatus(main)) === 1, 'the main channel to be enabled again');

    await chatLoad(clients, 4);
    await projected(target);
    const purge = await call(target, root, 'delete', `/api/log/?target_timestamp=${boundary}`).expect(200);
    expect(purge.body.success).toBe(true);
    expect(purge.body.data).toBeGreaterThan(0);
    await projected(target);

    // Quiet now: nothing else may reach the ledger between the live snapshot and the rebuild's end.
    const store = eventStore(target);
    const head = await store.headPosition();
    const live = await snapshotTables(dataSource(target), TABLES);
    expect(live.logs.length).toBeGreaterThan(10);
    expect(live.log_purges).toHaveLength(1);
    expect(live.token_balances.length).toBeGreaterThanOrEqual(3);
    expect(live.channel_status.length).toBe(3);
    expect(live.quota_data.length).toBeGreaterThanOrEqual(3);
    const usedOnSpare: Array<{ used_quota: string }> = await dataSource(target).query(
      'SELECT used_quota FROM channel_status WHERE channel_id = $1',
      [spare],
    );
    expect(Number(usedOnSpare[0].used_quota)).toBeGreaterThan(0);

    // Damage every table first, so equality shows the replay rebuilt them, then rebuild through the CLI's function.
    await dataSource(target).query(
      `UPDATE logs SET quota = quota + 1; DELETE FROM log_purges; UPDATE token_balances SET remain_quota = 0;
       UPDATE channel_status SET status = 1, used_quota = 0; UPDATE account_balances SET quota = 0;
       UPDATE quota_data SET token_used = 0`,
    );
    const lines: string[] = [];
    const report = await rebuildProjectionsIn(target.app, { waitSeconds: 10 }, (line) => lines.push(line));
    expect(report.projections.map((projection) => projection.name).sort()).toEqual(
      expect.arrayContaining(['account-balances', 'channel-status', 'logs', 'quota-data', 'token-balances']),
    );
    expect(report.position).toBe(head);
    await projected(target);
    expect(await store.headPosition()).toBe(head);

    const comparison = await compareTables(live, dataSource(target), TABLES);
    expect(comparison.summary).toBe(comparison.equal ? comparison.summary : 'equal');
    expect(comparison.equal).toBe(true);

    // And the live runner carries on from the rebuilt checkpoints: a new charge lands once, in every projection.
    const logsBefore = live.logs.length;
    await clients[0].chat.completions.create({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'after the rebuild' }] });
    await projected(target);
    const after = await snapshotTables(dataSource(target), ['logs']);
    expect(after.logs).toHaveLength(logsBefore + 1);
  });
});
