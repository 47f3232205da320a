import type { TestApp } from '../support/app';
import { type Charge, type ChargeName, logsApiFixture } from './logs-api-support';
import { balanceRow, type Caller, call, projected } from './users-support';

/**
 * The log API over relay charges: QuotaConsumed events are appended to the ledger exactly as the relay settles
 * them (account stream, id from the request id), the projections fold them, and every /api/log read route reads
 * them. The role guard, bad input and the purge are in logs-api-purge.spec.ts.
 */
describe('log API (/api/log)', () => {
  const fixture = logsApiFixture();
  const { now, settle, list, requestIds } = fixture;
  let target: TestApp;
  let root: Caller;
  let alice: Caller;
  let bob: Caller;
  let charges: Record<ChargeName, Charge>;

  beforeAll(() => {
    ({ target, root, alice, bob, charges } = fixture.context);
  });

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
});
