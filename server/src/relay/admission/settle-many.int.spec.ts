import Redis from 'ioredis';
import { testRedisUrl } from '#test/support/database';
import { SETTLE_MANY } from './quota-scripts';
import { type ScriptTestKeys, scriptTestKeys } from './script-test-keys';

/**
 * SETTLE_MANY on its own, against real Redis: what one batch of charges does to the reservations, the leases and the
 * settled sets. (QuotaAdmissionService.settleMany builds its arguments; the relay specs cover it end to end.)
 */
describe('SETTLE_MANY (real Redis)', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(testRedisUrl());
  });
  afterAll(() => redis.disconnect());

  const keysOf = () => scriptTestKeys('settle-many');
  type Keys = ScriptTestKeys;
  type Charge = [reservation: string, requestId: string, amount: number, position: number, kind: 'r' | 'b'];

  const settleMany = (keys: Keys, withToken: boolean, charges: Charge[]) =>
    redis.eval(SETTLE_MANY, 7, ...keys.seven, withToken ? 1 : 0, ...charges.flat());

  async function state(keys: Keys) {
    const settled = async (key: string) => {
      const flat = await redis.zrange(key, 0, -1, 'WITHSCORES');
      const entries: Record<string, number> = {};
      for (let i = 0; i < flat.length; i += 2) entries[flat[i]] = Number(flat[i + 1]);
      return entries;
    };
    return {
      acctResv: await redis.hgetall(keys.acctResv),
      tokResv: await redis.hgetall(keys.tokResv),
      leases: await redis.zrange(keys.leases, 0, -1),
      acctSettled: await settled(keys.acctSettled),
      tokSettled: await settled(keys.tokSettled),
    };
  }

  async function given(keys: Keys, reservations: Record<string, number>) {
    await redis.hset(keys.acctBal, 'base', 1000, 'pos', 10);
    await redis.hset(keys.tokBal, 'base', 500, 'pos', 12);
    for (const [id, amount] of Object.entries(reservations)) {
      await redis.hset(keys.acctResv, id, amount);
      await redis.hset(keys.tokResv, id, amount);
      await redis.zadd(keys.leases, Date.now() + 60_000, id);
    }
  }

  it('settles requests and block shares of one batch: reservations, leases and settled entries per base position', async () => {
    const keys = keysOf();
    await given(keys, { 'req-a': 100, 'req-b': 80, 'block-1': 1000, 'block-2': 50 });
    await settleMany(keys, true, [
      ['req-a', 'req-a', 40, 11, 'r'], // past the user's base (10), not past the token's (12)
      ['block-1', 'c1', 30, 13, 'b'],
      ['block-1', 'c2', 0, 14, 'b'], // nothing charged: no settled entry
      ['block-2', 'c3', 20, 15, 'b'],
      ['block-1', 'c4', 20, 9, 'b'], // already inside both bases
      ['block-2', 'c5', 45, 16, 'b'], // more than block-2 has left: it goes
    ]);
    expect(await state(keys)).toEqual({
      acctResv: { 'req-b': '80', 'block-1': '950' },
      tokResv: { 'req-b': '80', 'block-1': '950' },
      // A block's lease stays (SHRINK removes it when the block is given back); a request's goes with it.
      leases: expect.arrayContaining(['req-b', 'block-1', 'block-2']), // and nothing else: see below
      acctSettled: { 'req-a:40': 11, 'c1:30': 13, 'c3:20': 15, 'c5:45': 16 },
      tokSettled: { 'c1:30': 13, 'c3:20': 15, 'c5:45': 16 },
    });
    expect(await redis.zcard(keys.leases)).toBe(3);
  });

  it('without a token, leaves the token keys alone', async () => {
    const keys = keysOf();
    await given(keys, { 'req-a': 100, 'block-1': 100 });
    await settleMany(keys, false, [
      ['req-a', 'req-a', 40, 20, 'r'],
      ['block-1', 'c1', 30, 21, 'b'],
    ]);
    expect(await state(keys)).toMatchObject({
      acctResv: { 'block-1': '70' },
      tokResv: { 'req-a': '100', 'block-1': '100' },
      acctSettled: { 'req-a:40': 20, 'c1:30': 21 },
      tokSettled: {},
    });
  });

  it('is idempotent for request charges shipped again (a recovery after a crash)', async () => {
    const keys = keysOf();
    await given(keys, { 'req-a': 100, 'req-b': 100 });
    const batch: Charge[] = [
      ['req-a', 'req-a', 40, 20, 'r'],
      ['req-b', 'req-b', 60, 21, 'r'],
    ];
    await settleMany(keys, true, batch);
    const once = await state(keys);
    await settleMany(keys, true, batch);
    expect(await state(keys)).toEqual(once);
    expect(once).toMatchObject({ acctResv: {}, tokResv: {}, leases: [], acctSettled: { 'req-a:40': 20, 'req-b:60': 21 } });
  });

  it('takes batches far longer than one variadic command (chunks under the unpack limit)', async () => {
    const keys = keysOf();
    const count = 9_000;
    const reservations = Object.fromEntries(Array.from({ length: count }, (_, i) => [`r${i}`, 10]));
    await redis.hset(keys.acctResv, reservations);
    await redis.hset(keys.tokResv, reservations);
    await redis.zadd(keys.leases, ...Object.keys(reservations).flatMap((id) => [Date.now() + 60_000, id]));
    await redis.hset(keys.acctBal, 'base', 1_000_000, 'pos', 10);
    await redis.hset(keys.tokBal, 'base', 1_000_000, 'pos', 10);
    await settleMany(
      keys,
      true,
      Object.keys(reservations).map((id, i): Charge => [id, id, 7, 11 + i, 'r']),
    );
    expect(await redis.hlen(keys.acctResv)).toBe(0);
    expect(await redis.hlen(keys.tokResv)).toBe(0);
    expect(await redis.zcard(keys.leases)).toBe(0);
    expect(await redis.zcard(keys.acctSettled)).toBe(count);
    expect(await redis.zcard(keys.tokSettled)).toBe(count);
    expect(await redis.zscore(keys.acctSettled, `r${count - 1}:7`)).toBe(String(11 + count - 1));
  });
});
