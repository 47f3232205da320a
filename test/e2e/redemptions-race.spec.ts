import { randomUUID } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { createHttpApp } from '#server/http-app';
import { newEvent } from '#server/ledger/event-envelope';
import { accountStream, redemptionStream } from '#server/ledger/streams';
import { createTestApp, type TestApp } from '../support/app';
import { balanceRow, call, type Caller, eventStore, logRows, projected, register, rootCaller, setOptions } from './users-support';

/**
 * Two api processes on one database and one Redis prefix, twenty concurrent redeems of one code split between
 * them (and between two users): the code stream's expected revision lets exactly one through, the quota moves
 * once and one top-up log row is written. No mutex and no sleep: nothing is shared but Postgres.
 */
describe('redemption race across two api processes', () => {
  let first: TestApp;
  let second: NestFastifyApplication;
  let root: Caller;
  let alice: Caller;
  let bob: Caller;

  beforeAll(async () => {
    first = await createTestApp();
    second = await createHttpApp({ ...first.config, roles: ['api'] }, { logger: false });
    await second.init();
    await second.getHttpAdapter().getInstance().ready();
    await setOptions(first, { QuotaForNewUser: '1000' });
    root = await rootCaller(first);
    alice = await register(first, 'alice');
    bob = await register(first, 'bob');
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  function redeemOn(process: 0 | 1, caller: Caller, key: string) {
    const agent = process === 0 ? first.http() : request(second.getHttpServer());
    return agent.post('/api/user/topup').set('Authorization', caller.token).send({ key });
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
