import OpenAI from 'openai';
import { rebuildProjectionsIn } from '#server/cli/rebuild-projections';
import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { createTestApp, type TestApp } from '../support/app';
import { compareTables, snapshotTables } from '../support/compare-tables';
import { createChannel, listen, routable, sdk, userWithToken } from './relay-support';
import { balances, type StatementLine, statementCsv, wholeStatement } from './statement-support';
import { call, type Caller, dataSource, eventStore, projected, register, rootCaller, setOptions } from './users-support';

jest.setTimeout(120_000);

/**
 * The statement after a mixed load: sign-up gifts, invites and affiliate transfers, redemption codes, admin quota
 * edits and relay charges (plain and streamed, through a fake upstream, concurrently with the console writes). For
 * every user the statement chains (balance − delta = the next older balance) and sums to the balance, which is the
 * account-balances quota; the projections rebuilt from the ledger give the same table and the same statements.
 */
describe('statement: chain, sum and balance after a mixed load, and rebuilt equal to live', () => {
  let target: TestApp;
  let baseURL: string;
  let root: Caller;
  const upstream = new OpenAIUpstreamFake();

  beforeAll(async () => {
    await upstream.start();
    target = await createTestApp();
    baseURL = await listen(target);
    root = await rootCaller(target);
  });
  afterAll(async () => {
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

  it('every user statement chains and sums to the account balance, live and after a rebuild', async () => {
    await createChannel(target, root, { type: 1, name: 'main', baseUrl: upstream.baseUrl, models: ['gpt-3.5-turbo', 'gpt-4o-mini'] });
    const alice = await userWithToken(target, 'sr-alice', 40_000_000);
    const bob = await userWithToken(target, 'sr-bob', 20_000_000, { unlimited_quota: false, remain_quota: 10_000_000 });
    // A token whose name needs CSV quoting (a comma, a quote) and would run as a spreadsheet formula.
    const odd = await call(target, alice, 'post', '/api/token/', {
      name: '=odd, "quoted"',
      remain_quota: 0,
      expired_time: -1,
      unlimited_quota: true,
      model_limits_enabled: false,
      model_limits: '',
      allow_ips: '',
      group: '',
    }).expect(200);
    expect(odd.body.success).toBe(true);
    const tokens = (await call(target, alice, 'get', '/api/token/?p=0&size=10').expect(200)).body.data;
    const oddToken = (tokens.items ?? tokens).find((token: { name: string }) => token.name === '=odd, "quoted"');
    const clients = [sdk(baseURL, alice.key), sdk(baseURL, bob.key), sdk(baseURL, `sk-${oddToken.key}`)];
    await routable(target, alice.key, baseURL, 'gpt-4o-mini');

    await setOptions(target, { QuotaForNewUser: '1000', QuotaForInviter: '600', QuotaForInvitee: '250', QuotaPerUnit: '500' });
    const affCode = (await call(target, alice, 'get', '/api/user/aff').expect(200)).body.data as string;
    const issued = await call(target, root, 'post', '/api/redemption/', { name: 'load', quota: 2_000_000, count: 4 }).expect(200);
    const keys = issued.body.data as string[];

    // Console writes while the relay charges the same accounts.
    const invited: Caller[] = [];
    const consoleWrites = (async () => {
      for (let i = 0; i < 4; i++) invited.push(await register(target, `sr-inv${i}`, { affCode }));
      await projected(target);
      expect((await call(target, alice, 'post', '/api/user/aff_transfer', { quota: 1000 }).expect(200)).body.success).toBe(true);
      expect((await call(target, alice, 'post', '/api/user/topup', { key: keys[0] }).expect(200)).body.success).toBe(true);
      expect((await call(target, bob, 'post', '/api/user/topup', { key: keys[1] }).expect(200)).body.success).toBe(true);
      expect((await call(target, invited[0], 'post', '/api/user/topup', { key: keys[2] }).expect(200)).body.success).toBe(true);
      for (const user of [invited[1], invited[2]]) {
        const form = (await call(target, root, 'get', `/api/user/${user.id}`).expect(200)).body.data;
        expect((await call(target, root, 'put', '/api/user/', { ...form, quota: 5000 + user.id }).expect(200)).body.success).toBe(true);
      }
    })();
    await Promise.all([
      consoleWrites,
      chat(clients[0], 6, 'gpt-4o-mini'),
      chat(clients[1], 5, 'gpt-3.5-turbo'),
      chat(clients[2], 3, 'gpt-3.5-turbo'),
    ]);

    // Admin edits of accounts that hold relay charges: the edit is taken against the balance net of them.
    await projected(target);
    for (const user of [alice, bob]) {
      const form = (await call(target, root, 'get', `/api/user/${user.id}`).expect(200)).body.data;
      expect((await call(target, root, 'put', '/api/user/', { ...form, quota: form.quota + 123_456 }).expect(200)).body.success).toBe(true);
    }
    await chat(clients[0], 3, 'gpt-3.5-turbo');
    await chat(clients[1], 2, 'gpt-4o-mini');
    await projected(target);

    const users: Array<{ id: number }> = await dataSource(target).query('SELECT id FROM users ORDER BY id');
    const quota = await balances(target);
    const live = new Map<number, StatementLine[]>();
    for (const { id } of users) {
      const lines = await wholeStatement(target, root, `/api/statement/?user_id=${id}`, 9);
      expect({ id, balance: lines[0]?.balance ?? 0 }).toEqual({ id, balance: quota.get(id) ?? 0 });
      live.set(id, lines);
    }
    const kinds = (id: number) => new Set(live.get(id)!.map((line) => line.kind));
    expect(kinds(alice.id)).toEqual(
      new Set(['gift', 'invite_reward', 'affiliate_transfer', 'redemption', 'relay_charge', 'admin_adjustment']),
    );
    expect(live.get(alice.id)!.filter((line) => line.kind === 'relay_charge')).toHaveLength(6 + 3 + 3);
    expect(live.get(bob.id)!.filter((line) => line.kind === 'relay_charge')).toHaveLength(5 + 2);
    const charge = live.get(alice.id)!.find((line) => line.kind === 'relay_charge' && line.ref.token_name === '=odd, "quoted"')!;
    expect(charge).toMatchObject({ delta: expect.any(Number), ref: { model: 'gpt-3.5-turbo', token_id: oddToken.id } });
    expect(charge.delta).toBeLessThan(0);
    expect(charge.request_id).not.toBe('');
    // The owner reads the same lines (only an admin's id is hidden from them).
    const own = await wholeStatement(target, alice, '/api/statement/self', 50);
    expect(own.map((line) => [line.id, line.delta, line.balance])).toEqual(
      live.get(alice.id)!.map((line) => [line.id, line.delta, line.balance]),
    );

    // The CSV holds every line; the odd token name survives quoting (with the formula guard).
    const csv = await statementCsv(target, root, `/api/statement/?user_id=${alice.id}&format=csv`);
    const [header, ...records] = csv.records;
    expect(records.map((record) => Number(record[header.indexOf('id')]))).toEqual(live.get(alice.id)!.map((line) => line.id));
    const oddRecord = records.find((record) => Number(record[0]) === charge.id)!;
    expect(oddRecord[header.indexOf('token_name')]).toBe(`'=odd, "quoted"`);
    expect(Number(oddRecord[header.indexOf('balance')])).toBe(charge.balance);

    // Rebuild: damage the table first, so equality shows the replay wrote it.
    const head = await eventStore(target).headPosition();
    const before = await snapshotTables(dataSource(target), ['statement_lines', 'account_balances']);
    expect(before.statement_lines.length).toBeGreaterThan(40);
    await dataSource(target).query('UPDATE statement_lines SET balance = 0');
    await dataSource(target).query('DELETE FROM statement_lines WHERE kind = $1', ['gift']);
    const report = await rebuildProjectionsIn(target.app, { waitSeconds: 10 }, () => undefined);
    expect(report.projections.map((projection) => projection.name)).toEqual(expect.arrayContaining(['statement', 'account-balances']));
    expect(report.position).toBe(head);
    await projected(target);
    const comparison = await compareTables(before, dataSource(target), ['statement_lines', 'account_balances']);
    expect(comparison.differences).toEqual([]);
    for (const { id } of users) {
      const lines = await wholeStatement(target, root, `/api/statement/?user_id=${id}`, 13);
      expect({ id, lines }).toEqual({ id, lines: live.get(id) });
    }
  });
});
