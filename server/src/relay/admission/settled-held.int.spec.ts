import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { testRedisUrl } from '#test/support/database';
import { EXPIRE, RESERVE, SET_BASE, SETTLE, SETTLE_MANY } from './quota-scripts';
import { type ScriptTestKeys, scriptTestKeys } from './script-test-keys';

/**
 * The `held` field of a base (quota-scripts.ts): the sum of its settled entries, kept by every script that adds or
 * prunes one, so that admission reads one field instead of summing a set that grows for as long as the projector is
 * behind. Against real Redis: the field always equals the sum of the set, availability is what it was when it was
 * summed, a base written before the field existed gets it, and RESERVE's cost no longer grows with the set.
 */
describe('settled entries and held (real Redis)', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(testRedisUrl());
  });
  afterAll(() => redis.disconnect());

  const keysOf = () => scriptTestKeys('held');
  type Keys = ScriptTestKeys;

  const setBase = (bal: string, settled: string, base: number, pos: number, onlyIfLoaded = 0) =>
    redis.eval(SET_BASE, 2, bal, settled, base, pos, onlyIfLoaded);
  const reserve = (k: Keys, id: string, amount: number) =>
    redis.eval(RESERVE, 8, ...k.seven, k.tokens, id, amount, Date.now() + 60_000, 1, 1) as Promise<[number, number, number]>;
  const settle = (k: Keys, id: string, amount: number, position: number) => redis.eval(SETTLE, 7, ...k.seven, id, amount, position, 1);
  const settleMany = (k: Keys, charges: Array<[reservation: string, requestId: string, amount: number, position: number]>) =>
    redis.eval(SETTLE_MANY, 7, ...k.seven, 1, ...charges.flatMap((charge) => [...charge, 'r']));
  const expire = (k: Keys, head: number) =>
    redis.eval(EXPIRE, 7, k.acctBal, k.acctSettled, k.acctResv, k.leases, k.tokBal, k.tokSettled, k.tokResv, Date.now() + 120_000, head);

  /** The sum of a set's amounts, as the scripts used to compute it on every call. */
  async function summed(settled: string): Promise<number> {
    const members = await redis.zrange(settled, 0, -1);
    return members.reduce((sum, member) => sum + Number(member.slice(member.lastIndexOf(':') + 1)), 0);
  }
  async function expectHeldIsTheSum(k: Keys): Promise<void> {
    expect(Number(await redis.hget(k.acctBal, 'held'))).toBe(await summed(k.acctSettled));
    expect(Number(await redis.hget(k.tokBal, 'held'))).toBe(await summed(k.tokSettled));
  }

  it('keeps held equal to the sum of the set through settles, a charge shipped twice, expiries and base moves', async () => {
    const k = keysOf();
    await setBase(k.acctBal, k.acctSettled, 1_000, 10);
    await setBase(k.tokBal, k.tokSettled, 500, 10);
    for (const id of ['a', 'b', 'c', 'd', 'e']) expect((await reserve(k, id, 20))[0]).toBe(1);

    await settle(k, 'a', 15, 11);
    await settle(k, 'a', 15, 11); // shipped again (a recovery): counted once
    await settleMany(k, [
      ['b', 'b', 12, 12],
      ['c', 'c', 9, 13],
      ['c', 'c', 9, 13], // the same charge twice in one batch: once
      ['x', 'x', 4, 9], // inside the base already: no entry
    ]);
    await expectHeldIsTheSum(k);
    expect(await redis.hget(k.acctBal, 'held')).toBe('36');
    // d and e are still reserved (20 each): 1,000 − 36 − 40.
    const [, user, token] = await reserve(k, 'f', 1);
    expect([user, token]).toEqual([1_000 - 36 - 40 - 1, 500 - 36 - 40 - 1]);

    // d's and e's (and f's) leases run out: their reservations become entries at the head (14).
    await redis.zadd(k.leases, Date.now() - 1, 'd', Date.now() - 1, 'e', Date.now() - 1, 'f');
    expect(await expire(k, 14)).toBe(3);
    await expectHeldIsTheSum(k);
    expect(await redis.hget(k.acctBal, 'held')).toBe(String(36 + 41));

    // The projection passes 12: a's and b's entries are inside the new base and leave held.
    expect(await setBase(k.acctBal, k.acctSettled, 1_000 - 27, 12, 1)).toBe(1);
    expect(await redis.hget(k.acctBal, 'held')).toBe(String(9 + 41));
    await expectHeldIsTheSum({ ...k, tokBal: k.acctBal, tokSettled: k.acctSettled });
    // An old base is refused and changes nothing.
    expect(await setBase(k.acctBal, k.acctSettled, 5, 11, 1)).toBe(0);
    expect(await redis.hget(k.acctBal, 'held')).toBe(String(9 + 41));
    // Past everything: the set is empty, held is exactly 0.
    expect(await setBase(k.acctBal, k.acctSettled, 1_000 - 27 - 9 - 41, 14, 1)).toBe(1);
    expect(await redis.zcard(k.acctSettled)).toBe(0);
    expect(await redis.hget(k.acctBal, 'held')).toBe('0');
  });

  it('does not add an expired reservation at or below the base: the base holds it already', async () => {
    const k = keysOf();
    await setBase(k.acctBal, k.acctSettled, 100, 20);
    await setBase(k.tokBal, k.tokSettled, 100, 20);
    await reserve(k, 'a', 30);
    await redis.zadd(k.leases, Date.now() - 1, 'a');
    expect(await expire(k, 20)).toBe(1);
    expect(await redis.zcard(k.acctSettled)).toBe(0);
    expect(await redis.hgetall(k.acctResv)).toEqual({});
    expect((await reserve(k, 'b', 1))[1]).toBe(99);
  });

  it('gives a base written before held existed its field from the set, the entries the base holds pruned', async () => {
    const k = keysOf();
    await redis.hset(k.acctBal, 'base', 1_000, 'pos', 10);
    await redis.hset(k.tokBal, 'base', 1_000, 'pos', 10);
    await redis.zadd(k.acctSettled, 9, 'old:50', 11, 'a:7', 12, 'b:8');
    await redis.zadd(k.tokSettled, 11, 'a:7');
    const [status, user, token] = await reserve(k, 'c', 5);
    expect([status, user, token]).toEqual([1, 1_000 - 15 - 5, 1_000 - 7 - 5]);
    expect(await redis.hget(k.acctBal, 'held')).toBe('15');
    expect(await redis.zrange(k.acctSettled, 0, -1)).toEqual(['a:7', 'b:8']);
  });

  it("reads held instead of the set: RESERVE's cost does not grow with the entries the projector has not passed", async () => {
    const k = keysOf();
    await setBase(k.acctBal, k.acctSettled, 10_000_000_000, 0);
    await setBase(k.tokBal, k.tokSettled, 10_000_000_000, 0);
    const timeReserves = async () => {
      const times: number[] = [];
      for (let i = 0; i < 30; i++) {
        const started = process.hrtime.bigint();
        await reserve(k, `probe-${times.length}-${randomUUID()}`, 1);
        times.push(Number(process.hrtime.bigint() - started));
      }
      return times.sort((a, b) => a - b)[15];
    };
    const empty = await timeReserves();
    // 50,000 charges settled past a base that does not move (the projector starved of CPU).
    for (let first = 0; first < 50_000; first += 1_000) {
      const charges = Array.from({ length: 1_000 }, (_, i): [string, string, number, number] => {
        const id = `s${first + i}`;
        return [id, id, 3, first + i + 1];
      });
      await settleMany(k, charges);
    }
    expect(await redis.zcard(k.acctSettled)).toBe(50_000);
    await expectHeldIsTheSum(k);
    const backlog = await timeReserves();
    // Summing 50,000 entries took tens of ms a call; reading the field is a round trip, as with an empty set.
    expect(backlog).toBeLessThan(Math.max(empty * 5, 2_000_000));
    const [, user] = await reserve(k, 'last', 1);
    expect(user).toBe(10_000_000_000 - 150_000 - 61);
  });
});
