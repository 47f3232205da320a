import OpenAI from 'openai';
import { rebuildProjectionsIn } from '#server/cli/rebuild-projections';
import type { EpayFake } from '../fakes/epay/epay-fake';
import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { createTestApp, type TestApp } from '../support/app';
import { compareTables, snapshotTables } from '../support/compare-tables';
import { createChannel, listen, routable, sdk, userWithToken } from './relay-support';
import { balances, type StatementLine, wholeStatement } from './statement-support';
import { configureEpay, placeAndSubmit } from './topup-support';
import { call, type Caller, dataSource, eventStore, projected, register, rootCaller, setOptions } from './users-support';

jest.setTimeout(180_000);

/** The read models of the quota economy that must rebuild equal to live (issue 16 §7). */
const TABLES = ['redemptions', 'topup_orders', 'quota_data', 'statement_lines', 'account_balances', 'logs'];

/**
 * The whole quota economy in ONE load (issue 16 §7): sign-up gifts, invite rewards and affiliate transfers,
 * redemption codes (issued, edited, disabled, redeemed, one refused), online top-ups paid through the fake Epay
 * gateway's signed callback over HTTP (one delivered five times at once, one failed on the wrong money, one left
 * pending), relay charges through a fake upstream (plain and streamed) and admin quota edits, the console writes,
 * the payments and the relay running concurrently. Then for every user the statement chains and sums on every page,
 * its newest balance is account_balances.quota, and after a rebuild from the ledger the codes, orders, dashboard
 * rows, statements, balances and logs are equal to live, row for row.
 */
describe('quota economy: one mixed load, statements hold for every user, rebuilt equal to live', () => {
  let target: TestApp;
  let baseURL: string;
  let root: Caller;
  let epay: EpayFake;
  const upstream = new OpenAIUpstreamFake();

  beforeAll(async () => {
    await upstream.start();
    target = await createTestApp();
    // The relay's base URL (…/v1) on a real port.
    baseURL = await listen(target);
    root = await rootCaller(target);
    epay = await configureEpay(target);
    // notify_url is ServerAddress + /api/user/epay/notify: the fake gateway calls this server over HTTP.
    await setOptions(target, { ServerAddress: new URL(baseURL).origin });
  });
  afterAll(async () => {
    await epay?.close();
    await target?.close();
    await upstream.close();
  });

  async function chat(client: OpenAI, rounds: number, model: string): Promise<void> {
    for (let round = 0; round < rounds; round++) {
      if (round % 2 === 0) {
        await client.chat.completions.create({ model, messages: [{ role: 'user', content: `hi ${round}` }] });
      } else {
        const stream = await client.chat.completions.create({ model, messages: [{ role: 'user', content: `hi ${round}` }], stream: true });
        for await (const chunk of stream) void chunk;
      }
    }
  }

  async function ok(caller: Caller, method: 'post' | 'put', path: string, body: unknown): Promise<unknown> {
    const response = await call(target, caller, method, path, body).expect(200);
    expect({ path, body: response.body }).toEqual({ path, body: expect.objectContaining({ success: true }) });
    return response.body.data;
  }

  async function adminEdit(user: Caller, quota: (current: number) => number): Promise<void> {
    const form = (await call(target, root, 'get', `/api/user/${user.id}`).expect(200)).body.data;
    await ok(root, 'put', '/api/user/', { ...form, quota: quota(form.quota) });
  }

  it('gifts, invites, transfers, codes, top-ups, charges and admin edits: chains hold, and a rebuild equals live', async () => {
    await createChannel(target, root, { type: 1, name: 'main', baseUrl: upstream.baseUrl, models: ['gpt-3.5-turbo', 'gpt-4o-mini'] });
    const alice = await userWithToken(target, 'ec-alice', 40_000_000);
    const bob = await userWithToken(target, 'ec-bob', 20_000_000, { unlimited_quota: false, remain_quota: 10_000_000 });
    const clients = [sdk(baseURL, alice.key), sdk(baseURL, bob.key)];
    await routable(target, alice.key, baseURL, 'gpt-4o-mini');

    await setOptions(target, { QuotaForNewUser: '1000', QuotaForInviter: '600', QuotaForInvitee: '250', QuotaPerUnit: '500' });
    const payer = await register(target, 'ec-payer');
    const affCode = (await call(target, alice, 'get', '/api/user/aff').expect(200)).body.data as string;
    const keys = (await ok(root, 'post', '/api/redemption/', { name: 'economy', quota: 2_000_000, count: 5 })) as string[];
    await projected(target);
    const codes = (await call(target, root, 'get', '/api/redemption/search?keyword=economy').expect(200)).body.data as Array<{
      id: number;
      key: string;
    }>;
    const codeOf = (key: string) => codes.find((code) => code.key === key)!.id;

    // Top-ups: orders by three users, submitted to the gateway (its form POST), then paid by its signed callback.
    const payments = (async () => {
      const paid = [
        await placeAndSubmit(target, alice, 3, 'zfb'),
        await placeAndSubmit(target, bob, 2, 'wx'),
        await placeAndSubmit(target, payer, 5, 'zfb'),
        await placeAndSubmit(target, payer, 1, 'wx'),
      ];
      const wrongMoney = await placeAndSubmit(target, bob, 4, 'zfb');
      const pending = await placeAndSubmit(target, alice, 7, 'wx');
      // The first paid order's callback arrives five times at once; the others once.
      const answers = await Promise.all([
        ...Array.from({ length: 5 }, () => epay.notify(paid[0])),
        ...paid.slice(1).map((tradeNo) => epay.notify(tradeNo)),
        epay.notify(wrongMoney, { money: '1.00' }),
      ]);
      expect(answers).toEqual(Array(answers.length).fill('success'));
      return { paid, wrongMoney, pending };
    })();

    // Console writes: invitations, an affiliate transfer, codes edited, disabled and redeemed, admin quota edits.
    const invited: Caller[] = [];
    const consoleWrites = (async () => {
      for (let i = 0; i < 3; i++) invited.push(await register(target, `ec-inv${i}`, { affCode }));
      await projected(target);
      await ok(alice, 'post', '/api/user/aff_transfer', { quota: 1000 });
      await ok(root, 'put', '/api/redemption/', { id: codeOf(keys[3]), name: 'economy-x', quota: 3_000_000 });
      await ok(root, 'put', '/api/redemption/?status_only=true', { id: codeOf(keys[4]), status: 2 });
      expect(await ok(alice, 'post', '/api/user/topup', { key: keys[0] })).toBe(2_000_000);
      expect(await ok(bob, 'post', '/api/user/topup', { key: keys[1] })).toBe(2_000_000);
      expect(await ok(invited[0], 'post', '/api/user/topup', { key: keys[3] })).toBe(3_000_000);
      // Refused: a used code, a disabled code.
      for (const key of [keys[0], keys[4]]) {
        const refused = (await call(target, payer, 'post', '/api/user/topup', { key }).expect(200)).body;
        expect(refused).toEqual({ success: false, message: '兑换失败，该兑换码已被使用' });
      }
      await adminEdit(invited[1], () => 5000 + invited[1].id);
      await adminEdit(payer, (quota) => quota + 777);
    })();

    const [orders] = await Promise.all([
      payments,
      consoleWrites,
      chat(clients[0], 6, 'gpt-4o-mini'),
      chat(clients[1], 5, 'gpt-3.5-turbo'),
      chat(clients[0], 3, 'gpt-3.5-turbo'),
    ]);

    // Admin edits of accounts that hold relay charges and top-ups, then more charges.
    await projected(target);
    await Promise.all([adminEdit(alice, (quota) => quota + 123_456), adminEdit(bob, (quota) => quota - 654_321)]);
    await Promise.all([
      chat(clients[0], 3, 'gpt-3.5-turbo'),
      chat(clients[1], 2, 'gpt-4o-mini'),
      ok(payer, 'post', '/api/user/topup', { key: keys[2] }),
    ]);
    await projected(target);

    // The orders: four paid (the repeated callback credited once), one failed on the wrong money, one pending.
    const orderRows: Array<{ trade_no: string; status: string; user_id: number }> = await dataSource(target).query(
      'SELECT trade_no, status, user_id FROM topup_orders',
    );
    const statusOf = new Map(orderRows.map((row) => [row.trade_no, row.status]));
    expect(orders.paid.map((tradeNo) => statusOf.get(tradeNo))).toEqual(['success', 'success', 'success', 'success']);
    expect([statusOf.get(orders.wrongMoney), statusOf.get(orders.pending)]).toEqual(['failed', 'pending']);

    // Every user's statement, page by page: the chain and the sum hold, the newest balance is the account's quota.
    const users: Array<{ id: number }> = await dataSource(target).query('SELECT id FROM users ORDER BY id');
    expect(users.length).toBeGreaterThanOrEqual(7);
    const quota = await balances(target);
    const live = new Map<number, StatementLine[]>();
    for (const { id } of users) {
      const lines = await wholeStatement(target, root, `/api/statement/?user_id=${id}`, 5);
      expect({ id, balance: lines[0]?.balance ?? 0 }).toEqual({ id, balance: quota.get(id) ?? 0 });
      live.set(id, lines);
    }
    const kinds = (user: Caller) => new Set(live.get(user.id)!.map((line) => line.kind));
    expect(kinds(alice)).toEqual(
      new Set(['gift', 'invite_reward', 'affiliate_transfer', 'redemption', 'topup', 'relay_charge', 'admin_adjustment']),
    );
    expect(kinds(bob)).toEqual(new Set(['gift', 'redemption', 'topup', 'relay_charge', 'admin_adjustment']));
    expect(kinds(payer)).toEqual(new Set(['gift', 'topup', 'redemption', 'admin_adjustment']));
    // One top-up line per paid order (the repeated callback included), none for the failed or the pending one.
    const topupRefs = [...live.values()]
      .flat()
      .filter((line) => line.kind === 'topup')
      .map((line) => String(line.ref.trade_no));
    expect(topupRefs.sort()).toEqual([...orders.paid].sort());
    expect(live.get(alice.id)!.filter((line) => line.kind === 'relay_charge')).toHaveLength(6 + 3 + 3);
    expect(live.get(bob.id)!.filter((line) => line.kind === 'relay_charge')).toHaveLength(5 + 2);
    const redemptionLines = [...live.values()].flat().filter((line) => line.kind === 'redemption');
    expect(redemptionLines.map((line) => Number(line.ref.code_id)).sort((a, b) => a - b)).toEqual(
      [keys[0], keys[1], keys[2], keys[3]].map(codeOf).sort((a, b) => a - b),
    );

    // The live tables, each with rows of this load; then damaged, so equality shows the replay wrote them.
    const head = await eventStore(target).headPosition();
    const db = dataSource(target);
    const before = await snapshotTables(db, TABLES);
    expect(before.redemptions).toHaveLength(5);
    expect(before.topup_orders).toHaveLength(6);
    expect(before.quota_data.length).toBeGreaterThan(0);
    expect(before.statement_lines).toHaveLength([...live.values()].reduce((sum, lines) => sum + lines.length, 0));
    await db.query('UPDATE statement_lines SET balance = 0');
    await db.query('DELETE FROM quota_data');
    await db.query("UPDATE topup_orders SET status = 'pending'");
    await db.query('UPDATE redemptions SET status = 1');
    await db.query('UPDATE account_balances SET quota = 0');

    const report = await rebuildProjectionsIn(target.app, { waitSeconds: 30 }, () => undefined);
    expect(report.projections.map((projection) => projection.name)).toEqual(
      expect.arrayContaining(['redemptions', 'topup-orders', 'quota-data', 'statement', 'account-balances', 'logs']),
    );
    expect(report.position).toBe(head);
    await projected(target);
    const comparison = await compareTables(before, db, TABLES);
    expect(comparison.differences).toEqual([]);
    expect(comparison.summary).toMatch(/^equal/);
    for (const { id } of users) {
      const lines = await wholeStatement(target, root, `/api/statement/?user_id=${id}`, 7);
      expect({ id, lines }).toEqual({ id, lines: live.get(id) });
    }
  });
});
