import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { createHttpApp } from '#server/http-app';
import { accountStream, topUpStream } from '#server/ledger/streams';
import type { EpayFake } from '../fakes/epay/epay-fake';
import { epayFakeSign } from '../fakes/epay/epay-fake';
import { createTestApp, type TestApp } from '../support/app';
import { configureEpay, deliver, placeAndSubmit } from './topup-support';
import { balanceRow, call, type Caller, eventStore, logRows, projected, register, setOptions, tablesFingerprint } from './users-support';

/**
 * The Epay callback under repetition and forgery: ten concurrent callbacks of one order, split between two api
 * processes on one database, credit once; a forged callback (bad or missing signature, another key, a tampered
 * field) and a signed callback with other money credit nothing.
 */
describe('Epay callbacks: once per order, only when signed and paid in full', () => {
  let first: TestApp;
  let second: NestFastifyApplication;
  let fake: EpayFake;
  let alice: Caller;

  beforeAll(async () => {
    first = await createTestApp();
    second = await createHttpApp({ ...first.config, roles: ['api'] }, { logger: false });
    await second.init();
    await second.getHttpAdapter().getInstance().ready();
    await setOptions(first, { QuotaForNewUser: '0' });
    fake = await configureEpay(first);
    alice = await register(first, 'alice');
  });
  afterAll(async () => {
    await fake.close();
    await second.close();
    await first.close();
  });

  function deliverOn(process: 0 | 1, callbackUrl: string): Promise<string> {
    const url = new URL(callbackUrl);
    const agent = process === 0 ? first.http() : request(second.getHttpServer());
    return agent
      .get(`${url.pathname}${url.search}`)
      .buffer(true)
      .then((response) => response.text);
  }

  async function quotaOf(caller: Caller): Promise<number> {
    await projected(first);
    return (await balanceRow(first, caller.id))?.quota ?? 0;
  }

  it('given one paid order, when its callback arrives ten times at once on two processes, then the account is credited once', async () => {
    const tradeNo = await placeAndSubmit(first, alice, 5);
    const before = await quotaOf(alice);
    const url = fake.callbackUrl(tradeNo);

    const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => deliverOn((index % 2) as 0 | 1, url)));
    expect(answers).toEqual(Array.from({ length: 10 }, () => 'success'));

    expect(await quotaOf(alice)).toBe(before + 2_500_000);
    const credits = (await eventStore(first).readStream(accountStream(alice.id))).filter((event) => event.type === 'QuotaToppedUp');
    expect(credits.map((event) => event.data.tradeNo)).toEqual([tradeNo]);
    expect((await eventStore(first).readStream(topUpStream(tradeNo))).map((event) => event.type)).toEqual(['TopUpOrdered', 'TopUpPaid']);
    const rows = (await logRows(first, alice.id)).filter((row) => row.type === 1);
    expect(rows).toHaveLength(1);

    // And ten more afterwards, one by one: still once.
    for (let i = 0; i < 10; i++) expect(await deliverOn((i % 2) as 0 | 1, url)).toBe('success');
    expect(await quotaOf(alice)).toBe(before + 2_500_000);
  }, 60_000);

  it('given forged callbacks, when they arrive, then each answers fail and nothing is written', async () => {
    const tradeNo = await placeAndSubmit(first, alice, 3);
    await projected(first);
    const before = await tablesFingerprint(first);
    const forged = [
      // A tampered amount keeping the gateway's signature.
      fake.callbackUrl(tradeNo, {}, (params) => ({ ...params, money: '999.00' })),
      // Signed with another key.
      fake.callbackUrl(tradeNo, {}, (params) => ({ ...params, sign: epayFakeSign(params, 'not-the-key') })),
      // No signature, an empty one, a garbage one, an upper-cased one.
      fake.callbackUrl(tradeNo, {}, ({ sign: _sign, ...params }) => params),
      fake.callbackUrl(tradeNo, {}, (params) => ({ ...params, sign: '' })),
      fake.callbackUrl(tradeNo, {}, (params) => ({ ...params, sign: 'x'.repeat(32) })),
      fake.callbackUrl(tradeNo, {}, (params) => ({ ...params, sign: params.sign.toUpperCase() })),
      // Another order's trade number under this order's signature.
      fake.callbackUrl(tradeNo, {}, (params) => ({ ...params, out_trade_no: `USR${alice.id}NOzzzzzz1700000000` })),
    ];
    for (const url of forged) expect(await deliver(first, url)).toBe('fail');
    expect(await deliver(first, 'http://localhost/api/user/epay/notify')).toBe('fail');
    await projected(first);
    expect(await tablesFingerprint(first)).toBe(before);
  });

  it('given a signed callback with other money, then the order fails, nothing is credited, and no later callback pays it', async () => {
    const tradeNo = await placeAndSubmit(first, alice, 4); // 29.20
    const before = await quotaOf(alice);
    expect(await deliver(first, fake.callbackUrl(tradeNo, { money: '0.01' }))).toBe('success');
    expect(await quotaOf(alice)).toBe(before);
    const [latest] = (await call(first, alice, 'get', '/api/user/topup/self?page_size=1')).body.data;
    expect(latest).toMatchObject({ trade_no: tradeNo, status: 'failed', paid_money: 0.01 });

    expect(await deliver(first, fake.callbackUrl(tradeNo))).toBe('success');
    expect(await quotaOf(alice)).toBe(before);
    const events = await eventStore(first).readStream(topUpStream(tradeNo));
    expect(events.map((event) => event.type)).toEqual(['TopUpOrdered', 'TopUpFailed']);
    expect(events[1].data).toMatchObject({ reason: 'money_mismatch', money: 0.01 });
    const credits = (await eventStore(first).readStream(accountStream(alice.id))).filter((event) => event.data.tradeNo === tradeNo);
    expect(credits).toEqual([]);
  });

  it('given signed callbacks that are not payments of an order, then they are acknowledged and write nothing', async () => {
    const tradeNo = await placeAndSubmit(first, alice, 2);
    await projected(first);
    const before = await tablesFingerprint(first);
    // Not TRADE_SUCCESS; an unknown order; not a trade number of ours.
    expect(await deliver(first, fake.callbackUrl(tradeNo, { trade_status: 'WAIT_BUYER_PAY' }))).toBe('success');
    expect(await deliver(first, fake.callbackUrl(tradeNo, { out_trade_no: `USR${alice.id}NOabcdef1700000000` }))).toBe('success');
    expect(await deliver(first, fake.callbackUrl(tradeNo, { out_trade_no: '../account-1' }))).toBe('success');
    // Signed but without readable money: fail (the gateway retries), nothing written.
    expect(await deliver(first, fake.callbackUrl(tradeNo, { money: 'lots' }))).toBe('fail');
    await projected(first);
    expect(await tablesFingerprint(first)).toBe(before);
    const [latest] = (await call(first, alice, 'get', '/api/user/topup/self?page_size=1')).body.data;
    expect(latest).toMatchObject({ trade_no: tradeNo, status: 'pending' });
  });
});
