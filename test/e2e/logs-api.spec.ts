import { ProjectionRunner } from '#projections/runner/projection-runner';
import { newEvent, systemActor } from '#server/ledger/event-envelope';
import { deterministicEventId } from '#server/ledger/event-ids';
import { accountStream } from '#server/ledger/streams';
import { QUOTA_CONSUMED, type QuotaConsumedData } from '#server/modules/accounts/index';
import { createTestApp, type TestApp } from '../support/app';
import { compareTables, snapshotTables } from '../support/compare-tables';
import { balanceRow, type Caller, call, dataSource, eventStore, projected, rootCaller, seedCaller, stateSnapshot } from './users-support';

/**
 * The log API over relay charges: QuotaConsumed events are appended to the ledger exactly as the relay settles
 * them (account stream, id from the request id), the projections fold them, and every /api/log route reads them.
 */
describe('log API (/api/log)', () => {
  let target: TestApp;
  let root: Caller;
  let alice: Caller;
  let bob: Caller;
  const now = Math.floor(Date.now() / 1000);

  interface Charge {
    requestId: string;
    user: Caller;
    tokenId: number;
    tokenName: string;
    model: string;
    channelPath: number[];
    group: string;
    quota: number;
    prompt: number;
    completion: number;
    at: number;
    stream?: boolean;
  }

  function consumedData(charge: Charge): QuotaConsumedData {
    return {
      requestId: charge.requestId,
      userId: charge.user.id,
      tokenId: charge.tokenId,
      tokenName: charge.tokenName,
      group: charge.group,
      modelName: charge.model,
      upstreamModel: charge.model,
      channelId: charge.channelPath[charge.channelPath.length - 1],
      channelName: `channel-${charge.channelPath[charge.channelPath.length - 1]}`,
      channelPath: charge.channelPath,
      relayMode: 'chat',
      promptTokens: charge.prompt,
      completionTokens: charge.completion,
      cachedTokens: 0,
      modelRatio: 0.075,
      completionRatio: 4,
      groupRatio: 1,
      modelPrice: -1,
      quota: charge.quota,
      tokenUnlimited: false,
      isStream: charge.stream ?? false,
      useTimeSeconds: 2,
      firstTokenMs: charge.stream ? 300 : 0,
      createdAt: charge.at,
      username: charge.user.username,
    };
  }

  /** Appends a charge as the relay settles one: account stream, 'any', id derived from the request id. */
  async function settle(charge: Charge): Promise<void> {
    const event = newEvent(QUOTA_CONSUMED, consumedData(charge) as unknown as Record<string, unknown>, {
      id: deterministicEventId('relay-request', charge.requestId),
      metadata: { correlationId: charge.requestId, actor: systemActor(), reasonCode: 'relay_request', clientIp: '10.0.0.1' },
    });
    await eventStore(target).appendToStream(accountStream(charge.user.id), [event], { expectedRevision: 'any' });
  }

  let charges: Record<'a1' | 'a2' | 'a3' | 'b1' | 'b2', Charge>;

  beforeAll(async () => {
    target = await createTestApp();
    root = await rootCaller(target);
    alice = await seedCaller(target, { username: 'alice' });
    bob = await seedCaller(target, { username: 'bob' });
    // A system row (type 4) for alice: the new-user gift, as registration appends it.
    await eventStore(target).appendToStream(accountStream(alice.id), [
      newEvent(
        'QuotaGranted',
        { amount: 1000, kind: 'new_user', username: 'alice', quotaDisplay: { inCurrency: false, quotaPerUnit: 500000 } },
        {
          id: deterministicEventId('test-grant', 'alice'),
          metadata: { correlationId: 'grant-alice', actor: systemActor(), reasonCode: 'new_user' },
        },
      ),
    ]);
    charges = {
      a1: {
        requestId: 'req-a1',
        user: alice,
        tokenId: 11,
        tokenName: 'a-key',
        model: 'gpt-4o-mini',
        channelPath: [1],
        group: 'default',
        quota: 100,
        prompt: 10,
        completion: 5,
        at: now - 7200,
      },
      a2: {
        requestId: 'req-a2',
        user: alice,
        tokenId: 11,
        tokenName: 'a-key',
        model: 'gpt-4o',
        channelPath: [1, 2],
        group: 'vip',
        quota: 200,
        prompt: 20,
        completion: 10,
        at: now - 3600,
        stream: true,
      },
      a3: {
        requestId: 'req-a3',
        user: alice,
        tokenId: 12,
        tokenName: 'a-other',
        model: 'gpt-4o-mini',
        channelPath: [1],
        group: 'default',
        quota: 300,
        prompt: 30,
        completion: 15,
        at: now - 10,
      },
      b1: {
        requestId: 'req-b1',
        user: bob,
        tokenId: 21,
        tokenName: 'b-key',
        model: 'gpt-4o',
        channelPath: [2],
        group: 'default',
        quota: 400,
        prompt: 40,
        completion: 20,
        at: now - 5,
      },
      b2: {
        requestId: 'req-b2',
        user: bob,
        tokenId: 21,
        tokenName: 'b-key',
        model: 'claude-3-haiku',
        channelPath: [3],
        group: 'vip',
        quota: 500,
        prompt: 50,
        completion: 25,
        at: now - 172800,
      },
    };
    for (const charge of Object.values(charges)) await settle(charge);
    await projected(target);
  });

  afterAll(async () => {
    await target?.close();
  });

  const list = async (caller: Caller, path: string) => {
    const response = await call(target, caller, 'get', path).expect(200);
    expect(response.body.success).toBe(true);
    return response.body.data as { items: Array<Record<string, unknown>>; total: number; page: number; page_size: number };
  };
  const requestIds = (items: Array<Record<string, unknown>>) =>
    items.filter((item) => item.type === 2).map((item) => Object.entries(charges).find(([, c]) => c.quota === item.quota)?.[0]);

  describe('folding the charges', () => {
    it('writes one type 2 row per charge with every new-api column and the other JSON', async () => {
      const page = await list(root, '/api/log/?p=1&page_size=10');
      expect(page).toMatchObject({ total: 6, page: 1, page_size: 10 });
      const a2 = page.items.find((item) => item.quota === 200)!;
      expect(a2).toEqual({
        id: expect.any(Number),
        user_id: alice.id,
        created_at: now - 3600,
        type: 2,
        content: '模型倍率 0.07，补全倍率 4.00，分组倍率 1.00',
        username: 'alice',
        token_name: 'a-key',
        model_name: 'gpt-4o',
        quota: 200,
        prompt_tokens: 20,
        completion_tokens: 10,
        use_time: 2,
        is_stream: true,
        channel: 2,
        token_id: 11,
        group: 'vip',
        other:
          '{"admin_info":{"use_channel":["1","2"]},"cache_tokens":0,"completion_ratio":4,"frt":300,"group_ratio":1,"model_price":-1,"model_ratio":0.075}',
      });
      expect(JSON.parse(page.items.find((item) => item.quota === 100)!.other as string).frt).toBe(-1000);
    });

    it('charges the balances: quota down, used quota up, one request each', async () => {
      expect(await balanceRow(target, alice.id)).toMatchObject({ quota: 1000 - 600, used_quota: 600, request_count: 3 });
      expect(await balanceRow(target, bob.id)).toMatchObject({ quota: -900, used_quota: 900, request_count: 2 });
      const self = await call(target, alice, 'get', '/api/user/self').expect(200);
      expect(self.body.data).toMatchObject({ quota: 400, used_quota: 600, request_count: 3 });
    });

    it('charges a retried settlement once (same request id, same event id)', async () => {
      await settle(charges.a1);
      await projected(target);
      expect((await list(root, '/api/log/?page_size=100')).total).toBe(6);
      expect(await balanceRow(target, alice.id)).toMatchObject({ used_quota: 600, request_count: 3 });
    });
  });

  describe('GET /api/log/ (admin)', () => {
    it('lists newest first (ledger order) with 1-based pages', async () => {
      const all = await list(root, '/api/log/?page_size=10');
      expect(requestIds(all.items)).toEqual(['b2', 'b1', 'a3', 'a2', 'a1']);
      expect(all.items[all.items.length - 1]).toMatchObject({
        type: 4,
        username: 'alice',
        content: '新用户注册赠送 1000 点额度',
        other: '',
      });
      const ids = all.items.map((item) => item.id as number);
      expect([...ids].sort((a, b) => b - a)).toEqual(ids);

      const first = await list(root, '/api/log/?p=1&page_size=2');
      const third = await list(root, '/api/log/?p=3&page_size=2');
      expect(first).toMatchObject({ total: 6, page: 1, page_size: 2 });
      expect(first.items.map((item) => item.id)).toEqual(ids.slice(0, 2));
      expect(third.items.map((item) => item.id)).toEqual(ids.slice(4, 6));
      expect(await list(root, '/api/log/?p=4&page_size=2')).toEqual({ items: [], total: 6, page: 4, page_size: 2 });
      expect((await list(root, '/api/log/?p=0&page_size=2')).page).toBe(1);
    });

    it('answers an empty page for page_size 0 or none, and 10 rows for a negative one (as new-api)', async () => {
      expect(await list(root, '/api/log/?page_size=0')).toEqual({ items: [], total: 6, page: 1, page_size: 0 });
      expect(await list(root, '/api/log/')).toEqual({ items: [], total: 6, page: 1, page_size: 0 });
      const negative = await list(root, '/api/log/?page_size=-1');
      expect(negative).toMatchObject({ total: 6, page_size: 10 });
      expect(negative.items).toHaveLength(6);
    });

    it.each([
      ['type=2', ['b2', 'b1', 'a3', 'a2', 'a1'], 5],
      ['type=4', [], 1],
      ['username=alice', ['a3', 'a2', 'a1'], 4],
      ['username=bob&type=2', ['b2', 'b1'], 2],
      ['token_name=a-key', ['a2', 'a1'], 2],
      ['model_name=gpt-4o', ['b1', 'a2'], 2],
      ['model_name=gpt-4o%25', ['b1', 'a3', 'a2', 'a1'], 4],
      ['channel=2', ['b1', 'a2'], 2],
      ['group=vip', ['b2', 'a2'], 2],
      [`start_timestamp=${now - 3600}&end_timestamp=${now - 10}`, ['a3', 'a2'], 2],
      ['username=alice&type=2&channel=1', ['a3', 'a1'], 2],
      ['username=nobody', [], 0],
    ])('filters %s', async (filter, expected, total) => {
      const page = await list(root, `/api/log/?page_size=50&${filter}`);
      expect(page.total).toBe(total);
      expect(requestIds(page.items)).toEqual(expected);
    });
  });

  describe('GET /api/log/self/', () => {
    it('shows only the caller rows, without ids and admin_info (empty other reads "null")', async () => {
      const page = await list(alice, '/api/log/self/?p=1&page_size=10');
      expect(page).toMatchObject({ total: 4, page: 1, page_size: 10 });
      expect(page.items.every((item) => item.user_id === alice.id && item.id === 0)).toBe(true);
      expect(requestIds(page.items)).toEqual(['a3', 'a2', 'a1']);
      expect(JSON.parse(page.items.find((item) => item.quota === 200)!.other as string)).toEqual({
        cache_tokens: 0,
        completion_ratio: 4,
        frt: 300,
        group_ratio: 1,
        model_price: -1,
        model_ratio: 0.075,
      });
      expect(page.items.find((item) => item.type === 4)!.other).toBe('null');
      const bobs = await list(bob, '/api/log/self?page_size=10');
      expect(requestIds(bobs.items)).toEqual(['b2', 'b1']);
    });

    it('takes the filters but never username or channel, and caps page_size at 100', async () => {
      const spoofed = await list(alice, '/api/log/self/?page_size=10&username=bob&channel=2');
      expect(spoofed.total).toBe(4);
      expect(requestIds((await list(alice, '/api/log/self/?page_size=10&type=2&token_name=a-key')).items)).toEqual(['a2', 'a1']);
      expect(
        requestIds((await list(alice, `/api/log/self/?page_size=10&start_timestamp=${now - 3600}&model_name=gpt-4o-mini`)).items),
      ).toEqual(['a3']);
      expect(requestIds((await list(alice, '/api/log/self/?page_size=10&group=vip')).items)).toEqual(['a2']);
      expect((await list(alice, '/api/log/self/?page_size=1000')).page_size).toBe(100);
      expect(await list(alice, '/api/log/self/?p=2&page_size=3')).toMatchObject({
        total: 4,
        page: 2,
        page_size: 3,
        items: [expect.objectContaining({ type: 4 })],
      });
    });
  });

  describe('GET /api/log/stat and /api/log/self/stat', () => {
    const stat = async (caller: Caller, path: string) => {
      const response = await call(target, caller, 'get', path).expect(200);
      expect(response.body.success).toBe(true);
      return response.body.data;
    };

    it('sums quota over type 2 rows in the filters and range; rpm/tpm over the last 60 s, ignoring the range', async () => {
      expect(await stat(root, '/api/log/stat')).toEqual({ quota: 1500, rpm: 2, tpm: 45 + 60 });
      expect(await stat(root, '/api/log/stat?type=4')).toEqual({ quota: 1500, rpm: 2, tpm: 105 });
      expect(await stat(root, '/api/log/stat?username=alice')).toEqual({ quota: 600, rpm: 1, tpm: 45 });
      expect(await stat(root, `/api/log/stat?start_timestamp=${now - 3600}`)).toEqual({ quota: 900, rpm: 2, tpm: 105 });
      expect(await stat(root, `/api/log/stat?end_timestamp=${now - 3600}`)).toEqual({ quota: 800, rpm: 2, tpm: 105 });
      expect(await stat(root, '/api/log/stat?channel=2')).toEqual({ quota: 600, rpm: 1, tpm: 60 });
      expect(await stat(root, '/api/log/stat?model_name=gpt-4o&token_name=b-key')).toEqual({ quota: 400, rpm: 1, tpm: 60 });
      expect(await stat(root, '/api/log/stat?group=vip')).toEqual({ quota: 700, rpm: 0, tpm: 0 });
      expect(await stat(root, '/api/log/stat?username=nobody')).toEqual({ quota: 0, rpm: 0, tpm: 0 });
    });

    it('counts only the caller rows on the self route, whatever username it passes', async () => {
      expect(await stat(alice, '/api/log/self/stat')).toEqual({ quota: 600, rpm: 1, tpm: 45 });
      expect(await stat(alice, '/api/log/self/stat?username=bob')).toEqual({ quota: 600, rpm: 1, tpm: 45 });
      expect(await stat(bob, '/api/log/self/stat?channel=3')).toEqual({ quota: 500, rpm: 0, tpm: 0 });
      expect(await stat(bob, '/api/log/self/stat')).toEqual({ quota: 900, rpm: 1, tpm: 60 });
    });
  });

  describe('legacy searches', () => {
    const search = async (caller: Caller, path: string) => {
      const response = await call(target, caller, 'get', path).expect(200);
      expect(response.body.success).toBe(true);
      return response.body.data as Array<Record<string, unknown>>;
    };

    it('admin: type = keyword or content starting with it, newest first, a bare array', async () => {
      expect(requestIds(await search(root, '/api/log/search?keyword=2'))).toEqual(['b2', 'b1', 'a3', 'a2', 'a1']);
      expect((await search(root, `/api/log/search?keyword=${encodeURIComponent('新用户')}`)).map((item) => item.type)).toEqual([4]);
      expect(await search(root, `/api/log/search?keyword=${encodeURIComponent('模型倍率')}`)).toHaveLength(5);
      expect(await search(root, '/api/log/search?keyword=%25')).toHaveLength(6);
      expect(await search(root, '/api/log/search?keyword=%5C')).toEqual([]);
    });

    it('self: the caller rows of that type, without ids and admin_info', async () => {
      const found = await search(alice, '/api/log/self/search?keyword=2');
      expect(requestIds(found)).toEqual(['a3', 'a2', 'a1']);
      expect(found.every((item) => item.id === 0 && !(item.other as string).includes('admin_info'))).toBe(true);
      expect(await search(alice, '/api/log/self/search?keyword=abc')).toEqual([]);
      expect(await search(bob, '/api/log/self/search?keyword=4')).toEqual([]);
    });
  });

  describe('role guard and bad input', () => {
    it('refuses the admin routes to a user (HTTP 200, success false) and every route to an anonymous caller (401)', async () => {
      for (const [method, path] of [
        ['get', '/api/log/'],
        ['get', '/api/log/stat'],
        ['get', '/api/log/search?keyword=2'],
        ['delete', `/api/log/?target_timestamp=${now}`],
      ] as const) {
        const response = await call(target, alice, method, path).expect(200);
        expect(response.body).toEqual({ success: false, message: '无权进行此操作，权限不足' });
      }
      for (const path of ['/api/log/self/', '/api/log/self/stat', '/api/log/self/search?keyword=2', '/api/log/']) {
        const response = await call(target, null, 'get', path).expect(401);
        expect(response.body.success).toBe(false);
      }
    });

    it('answers junk query strings with the documented shapes, never a 5xx, and changes nothing', async () => {
      const before = await stateSnapshot(target);
      const junk = [
        '/api/log/?p=abc&page_size=1e99&type=x&channel=99999999999999999999&start_timestamp=-1',
        '/api/log/?page_size=5&model_name=%00&token_name=%5C',
        '/api/log/?page_size=5&type=99999999999&p=99999999999999999999',
        '/api/log/?page_size=5&username[]=a&model_name=%25%25%5C',
        '/api/log/stat?channel=-99999999999999999999&model_name=%5C&start_timestamp=abc',
        '/api/log/stat?token_name=%00',
      ];
      for (const path of junk) {
        const response = await call(target, root, 'get', path).expect(200);
        expect(response.body.success).toBe(true);
      }
      expect((await list(root, '/api/log/?page_size=5&model_name=%00')).items).toEqual([]);
      expect((await list(root, '/api/log/?p=99999999999999999999&page_size=5')).items).toEqual([]);
      for (const path of [
        '/api/log/self/?page_size=%00&p=-1&type=%5C',
        '/api/log/self/stat?channel=x&token_name=%00',
        '/api/log/self/search?keyword=%00',
      ]) {
        const response = await call(target, alice, 'get', path).expect(200);
        expect(response.body.success).toBe(true);
      }
      for (const query of [
        '',
        '?target_timestamp=',
        '?target_timestamp=0',
        '?target_timestamp=abc',
        '?target_timestamp=1.5',
        // Out of range or not finite: refused, never saturated into "purge everything" (new-api's ParseInt).
        '?target_timestamp=99999999999999999999',
        '?target_timestamp=-99999999999999999999',
        '?target_timestamp=9007199254740993',
        '?target_timestamp=1e99',
        '?target_timestamp=Infinity',
        '?target_timestamp=NaN',
      ]) {
        const response = await call(target, root, 'delete', `/api/log/${query}`).expect(200);
        expect(response.body).toEqual({ success: false, message: 'target timestamp is required' });
      }
      expect((await call(target, root, 'delete', '/api/log/?target_timestamp=-5').expect(200)).body).toEqual({
        success: true,
        message: '',
        data: 0,
      });
      // Older than every row: nothing to delete, so nothing is recorded either (the answer is still 0).
      expect((await call(target, root, 'delete', '/api/log/?target_timestamp=1').expect(200)).body).toEqual({
        success: true,
        message: '',
        data: 0,
      });
      expect(await stateSnapshot(target)).toBe(before);
      expect(await dataSource(target).query("SELECT count(*)::int AS count FROM events WHERE stream_id = 'logs'")).toEqual([{ count: 0 }]);
    });
  });

  describe('DELETE /api/log/?target_timestamp', () => {
    it('deletes the rows older than the timestamp, answers the count, and a rebuild keeps them deleted', async () => {
      const response = await call(target, root, 'delete', `/api/log/?target_timestamp=${now - 3600}`).expect(200);
      expect(response.body).toEqual({ success: true, message: '', data: 2 });
      const after = await list(root, '/api/log/?page_size=50');
      expect(after.total).toBe(4);
      expect(requestIds(after.items)).toEqual(['b1', 'a3', 'a2']);

      const events: Array<{ type: string; data: Record<string, unknown> }> = await dataSource(target).query(
        "SELECT type, data FROM events WHERE stream_id = 'logs'",
      );
      expect(events).toEqual([{ type: 'LogsPurged', data: { before: now - 3600, adminId: root.id } }]);

      // Settled after the purge although admitted before its timestamp: the purge is past, the row stays.
      const late: Charge = { ...charges.a1, requestId: 'req-late', quota: 7, at: now - 99999 };
      await settle(late);
      await projected(target);
      expect((await list(root, '/api/log/?page_size=50')).total).toBe(5);
      // The balances are not a log: a purge leaves them alone.
      expect(await balanceRow(target, alice.id)).toMatchObject({ used_quota: 607, request_count: 4 });

      const tables = ['logs', 'log_purges', 'account_balances'];
      const live = await snapshotTables(dataSource(target), tables);
      // Damage the read models first, so an equal result shows the replay rebuilt them (purge included).
      await dataSource(target).query('UPDATE logs SET quota = 0; DELETE FROM log_purges; UPDATE account_balances SET used_quota = 0');
      const report = await target.app.get(ProjectionRunner).rebuild({ projections: ['logs', 'account-balances'] });
      expect(report.projections.find((projection) => projection.name === 'logs')).toMatchObject({ rows: { logs: 5, log_purges: 1 } });
      const comparison = await compareTables(live, dataSource(target), tables);
      expect(comparison.summary).toMatch(/^equal/);
      expect(live.logs).toHaveLength(5);
      expect(live.log_purges).toHaveLength(1);
    });

    it('a later purge deletes the late row too, and then answers 0 when nothing is that old', async () => {
      const first = await call(target, root, 'delete', `/api/log/?target_timestamp=${now - 3600}`).expect(200);
      expect(first.body).toEqual({ success: true, message: '', data: 1 });
      const purges = async () => dataSource(target).query("SELECT count(*)::int AS count FROM events WHERE stream_id = 'logs'");
      const recorded = await purges();
      const again = await call(target, root, 'delete', `/api/log/?target_timestamp=${now - 3600}`).expect(200);
      expect(again.body).toEqual({ success: true, message: '', data: 0 });
      // A purge that deletes nothing appends nothing.
      expect(await purges()).toEqual(recorded);
      expect(requestIds((await list(root, '/api/log/?page_size=50')).items)).toEqual(['b1', 'a3', 'a2']);
    });
  });
});
