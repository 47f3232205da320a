import { newEvent, systemActor } from '#server/ledger/event-envelope';
import { deterministicEventId } from '#server/ledger/event-ids';
import { accountStream } from '#server/ledger/streams';
import { QUOTA_CONSUMED, type QuotaConsumedData } from '#server/modules/accounts/index';
import { createTestApp, type TestApp } from '../support/app';
import { call, type Caller, dataSource, eventStore, projected, seedCaller, stateSnapshot } from './users-support';

/** GET /api/log/token?key=sk-… (public, CORS): the log rows of one token, looked up by its key. */
describe('GET /api/log/token (lookup by key)', () => {
  let target: TestApp;
  let alice: Caller;
  let tokenA: { id: number; key: string };
  let tokenB: { id: number; key: string };
  const now = Math.floor(Date.now() / 1000);

  async function createToken(caller: Caller, name: string): Promise<{ id: number; key: string }> {
    const created = await call(target, caller, 'post', '/api/token/', { name, remain_quota: 100000 }).expect(200);
    expect(created.body).toEqual({ success: true, message: '' });
    const [row] = await dataSource(target).query('SELECT id, key FROM tokens WHERE user_id = $1 AND name = $2', [caller.id, name]);
    return row;
  }

  async function settle(requestId: string, token: { id: number }, tokenName: string, quota: number, at: number): Promise<void> {
    const data: QuotaConsumedData = {
      requestId,
      userId: alice.id,
      tokenId: token.id,
      tokenName,
      group: 'default',
      modelName: 'gpt-4o-mini',
      upstreamModel: 'gpt-4o-mini',
      channelId: 3,
      channelName: 'c3',
      channelPath: [2, 3],
      relayMode: 'chat',
      promptTokens: 10,
      completionTokens: 5,
      cachedTokens: 0,
      modelRatio: 0.075,
      completionRatio: 4,
      groupRatio: 1,
      modelPrice: -1,
      quota,
      tokenUnlimited: false,
      isStream: false,
      useTimeSeconds: 1,
      firstTokenMs: 0,
      createdAt: at,
      username: alice.username,
    };
    await eventStore(target).appendToStream(
      accountStream(alice.id),
      [
        newEvent(QUOTA_CONSUMED, data as unknown as Record<string, unknown>, {
          id: deterministicEventId('relay-request', requestId),
          metadata: { correlationId: requestId, actor: systemActor(), reasonCode: 'relay_request' },
        }),
      ],
      { expectedRevision: 'any' },
    );
  }

  beforeAll(async () => {
    target = await createTestApp();
    alice = await seedCaller(target, { username: 'alice' });
    tokenA = await createToken(alice, 'key-a');
    tokenB = await createToken(alice, 'key-b');
    await settle('req-1', tokenA, 'key-a', 101, now - 60);
    await settle('req-2', tokenB, 'key-b', 202, now - 30);
    await settle('req-3', tokenA, 'key-a', 303, now - 10);
    await projected(target);
  });
  afterAll(async () => {
    await target?.close();
  });

  const lookup = (key: string) => target.http().get('/api/log/token').query({ key });

  it('answers the token rows newest first, without a session, as the owner sees them (no ids, no admin_info)', async () => {
    const response = await lookup(`sk-${tokenA.key}`).expect(200);
    expect(response.body.success).toBe(true);
    expect(response.body.message).toBe('');
    const rows = response.body.data as Array<Record<string, unknown>>;
    expect(rows.map((row) => row.quota)).toEqual([303, 101]);
    for (const row of rows) {
      expect(row).toMatchObject({
        id: 0,
        user_id: alice.id,
        type: 2,
        token_id: tokenA.id,
        token_name: 'key-a',
        username: 'alice',
        model_name: 'gpt-4o-mini',
      });
      const other = JSON.parse(row.other as string);
      expect(other).not.toHaveProperty('admin_info');
      expect(other).toMatchObject({ model_ratio: 0.075, completion_ratio: 4 });
    }
    // The key also works without its sk- prefix; the other token has its own rows.
    expect((await lookup(tokenA.key).expect(200)).body.data).toHaveLength(2);
    expect((await lookup(`sk-${tokenB.key}`).expect(200)).body.data.map((row: { quota: number }) => row.quota)).toEqual([202]);
  });

  it('answers any origin (CORS) and nothing CORS-related without an Origin', async () => {
    const cors = await target
      .http()
      .get('/api/log/token')
      .query({ key: `sk-${tokenA.key}` })
      .set('Origin', 'https://status.example')
      .expect(200);
    expect(cors.headers['access-control-allow-origin']).toBe('*');
    expect(cors.headers['access-control-allow-credentials']).toBe('true');
    const plain = await lookup(`sk-${tokenA.key}`).expect(200);
    expect(plain.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers an empty array for an unknown, missing, malformed or deleted key, never a 5xx, changing nothing', async () => {
    const before = await stateSnapshot(target);
    for (const key of [
      '',
      'sk-',
      `sk-${'x'.repeat(48)}`,
      'sk-abc\u0000def',
      "sk-' OR '1'='1",
      'x'.repeat(10_000),
      `sk-${tokenA.key}-5`,
      '%',
    ]) {
      const response = await lookup(key);
      expect([response.status, response.body]).toEqual([200, { success: true, message: '', data: [] }]);
    }
    for (const path of ['/api/log/token', '/api/log/token?key[]=a', `/api/log/token?key=sk-${tokenA.key}x`]) {
      const response = await target.http().get(path);
      expect([response.status, response.body]).toEqual([200, { success: true, message: '', data: [] }]);
    }
    expect(await stateSnapshot(target)).toBe(before);

    await call(target, alice, 'delete', `/api/token/${tokenB.id}`).expect(200);
    expect((await lookup(`sk-${tokenB.key}`).expect(200)).body).toEqual({ success: true, message: '', data: [] });
  });
});
