import { randomUUID } from 'node:crypto';
import { newEvent } from '#server/ledger/event-envelope';
import { accountStream, redemptionStream } from '#server/ledger/streams';
import { createTestApp, type TestApp } from '../support/app';
import { freePort, type GatewayProcess, startGateway } from './support/gateway-process';
import { balanceRow, call, type Caller, eventStore, logRows, projected, register, rootCaller, setOptions } from './users-support';

/**
 * Two api processes on one database and one Redis prefix (this jest process with every role, and a real gateway
 * child process with the api role only: two operating-system processes, so no in-memory lock could be shared),
 * twenty concurrent redeems of one code split between them (and between two users): the code stream's expected
 * revision lets exactly one through, the quota moves once and one top-up log row is written. No mutex and no
 * sleep: nothing is shared but Postgres and Redis.
 */
describe('redemption race across two api processes', () => {
  let first: TestApp;
  let second: GatewayProcess;
  let root: Caller;
  let alice: Caller;
  let bob: Caller;

  beforeAll(async () => {
    first = await createTestApp();
    second = await startGateway({
      port: await freePort(),
      role: 'api',
      env: {
        DATABASE_URL: first.config.DATABASE_URL,
        REDIS_URL: first.config.REDIS_URL,
        REDIS_PREFIX: first.config.REDIS_PREFIX,
        GLOBAL_API_RATE_LIMIT: '100000',
        GLOBAL_WEB_RATE_LIMIT: '100000',
        CRITICAL_RATE_LIMIT: '100000',
        READ_YOUR_WRITES_TIMEOUT_MS: '10000',
        LOG_LEVEL: 'warn',
      },
    });
    await setOptions(first, { QuotaForNewUser: '1000' });
    root = await rootCaller(first);
    alice = await register(first, 'alice');
    bob = await register(first, 'bob');
  }, 120_000);
  afterAll(async () => {
    await second?.stop();
    await first?.close();
  });

  /** POST /api/user/topup on the jest process (0) or the child gateway process (1). */
  async function redeemOn(where: 0 | 1, caller: Caller, key: string): Promise<{ status: number; body: unknown }> {
    if (where === 0) {
      const response = await first.http().post('/api/user/topup').set('Authorization', caller.token).send({ key });
      return { status: response.status, body: response.body as unknown };
    }
    const response = await fetch(`${second.baseUrl}/api/user/topup`, {
      method: 'POST',
      headers: { Authorization: caller.token, 'Content-Type': 'application/json' },
      body: JSON.stringify({ key }),
    });
    return { status: response.status, body: (await response.json()) as unknown };
  }

  it('given one code, when twenty redeems race on two processes, then exactly one succeeds and the quota moves once', async () => {
    const created = await call(first, root, 'post', '/api/redemption/', { name: 'race', quota: 777, count: 1 }).expect(200);
    const [key] = created.body.data as string[];
    await projected(first);
    const { id } = (await call(first, root, 'get', '/api/redemption/search?keyword=race').expect(200)).body.data[0] as { id: number };
    const before = { alice: (await balanceRow(first, alice.id))?.quota, bob: (await balanceRow(first, bob.id))?.quota };

    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) => redeemOn((index % 2) as 0 | 1, index % 4 < 2 ? alice : bob, key)),
    );
    for (const response of responses) expect(response.status).toBe(200);
    const bodies = responses.map((response) => response.body as { success: boolean; message: string; data?: number });
    // Both processes answered their ten (the child is another operating-system process on the same database).
    expect(second.pid).not.toBe(process.pid);
    const won = bodies.filter((body) => body.success);
    expect(won).toEqual([{ success: true, message: '', data: 777 }]);
    expect(bodies.filter((body) => !body.success)).toEqual(
      Array.from({ length: 19 }, () => ({ success: false, message: '兑换失败，该兑换码已被使用' })),
    );

    const winner = bodies.findIndex((body) => body.success) % 4 < 2 ? alice : bob;
    const loser = winner === alice ? bob : alice;
    const codeEvents = await eventStore(first).readStream(redemptionStream(id));
    expect(codeEvents.filter((event) => event.type === 'RedemptionCodeRedeemed')).toHaveLength(1);
    const credits = await eventStore(first).readStream(accountStream(winner.id));
    expect(credits.filter((event) => event.type === 'QuotaRedeemed').map((event) => event.data.amount)).toEqual([777]);

    await projected(first);
    expect((await balanceRow(first, winner.id))?.quota).toBe((winner === alice ? before.alice : before.bob)! + 777);
    expect((await balanceRow(first, loser.id))?.quota).toBe(winner === alice ? before.bob : before.alice);
    const topUps = [...(await logRows(first, alice.id)), ...(await logRows(first, bob.id))].filter((row) => row.type === 1);
    expect(topUps).toHaveLength(1);
    expect(topUps[0].username).toBe(winner.username);

    // A retried request by the winner changes nothing either.
    expect((await redeemOn(1, winner, key)).body).toEqual({ success: false, message: '兑换失败，该兑换码已被使用' });
    await projected(first);
    expect((await balanceRow(first, winner.id))?.quota).toBe((winner === alice ? before.alice : before.bob)! + 777);
  }, 60_000);

  it('given a crash between the two appends (code used, no credit), when anyone tries the code again, then the credit is appended once', async () => {
    const created = await call(first, root, 'post', '/api/redemption/', { name: 'crash', quota: 555, count: 1 }).expect(200);
    const [key] = created.body.data as string[];
    await projected(first);
    const { id } = (await call(first, root, 'get', '/api/redemption/search?keyword=crash').expect(200)).body.data[0] as { id: number };
    const before = (await balanceRow(first, alice.id))?.quota ?? 0;
    // What a process that died right after winning the race leaves behind: the code's event, not the credit.
    await eventStore(first).appendToStream(
      redemptionStream(id),
      [
        newEvent(
          'RedemptionCodeRedeemed',
          { userId: alice.id, username: 'alice', quota: 555, redeemedTime: 1 },
          { id: randomUUID(), metadata: { correlationId: 'crash', actor: { type: 'system' }, reasonCode: 'redemption_redeemed' } },
        ),
      ],
      { expectedRevision: 0 },
    );
    for (const caller of [bob, alice]) {
      expect((await redeemOn(1, caller, key)).body).toEqual({ success: false, message: '兑换失败，该兑换码已被使用' });
    }
    await projected(first);
    expect((await balanceRow(first, alice.id))?.quota).toBe(before + 555);
    const credits = (await eventStore(first).readStream(accountStream(alice.id))).filter(
      (event) => event.type === 'QuotaRedeemed' && event.data.redemptionId === id,
    );
    expect(credits).toHaveLength(1);
    expect((await logRows(first, alice.id)).filter((row) => row.content.endsWith(`兑换码ID ${id}`))).toHaveLength(1);
  }, 60_000);
});
