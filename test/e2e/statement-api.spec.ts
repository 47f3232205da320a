import { createTestApp, type TestApp } from '../support/app';
import { expectChain, statementCsv, statementPage, wholeStatement } from './statement-support';
import { call, type Caller, projected, register, rootCaller, setOptions, tablesFingerprint } from './users-support';

/**
 * GET /api/statement/self and GET /api/statement/?user_id=: every change of a user's quota (a sign-up gift, an
 * invite reward, an affiliate transfer, an admin edit, a redemption) as one line with the balance after it, paged
 * newest first, filtered, exported as CSV; bad input refused with the envelope and nothing written.
 */
describe('statement API', () => {
  let target: TestApp;
  let root: Caller;
  let alice: Caller;
  let bob: Caller;
  let codeId: number;

  beforeAll(async () => {
    target = await createTestApp();
    root = await rootCaller(target);
    await setOptions(target, { QuotaForNewUser: '1000', QuotaForInviter: '600', QuotaForInvitee: '250', QuotaPerUnit: '500' });
    alice = await register(target, 'st-alice');
    const affCode = (await call(target, alice, 'get', '/api/user/aff').expect(200)).body.data as string;
    bob = await register(target, 'st-bob', { affCode });
    await projected(target);
    expect((await call(target, alice, 'post', '/api/user/aff_transfer', { quota: 500 }).expect(200)).body.success).toBe(true);
    const form = (await call(target, root, 'get', `/api/user/${alice.id}`).expect(200)).body.data;
    expect((await call(target, root, 'put', '/api/user/', { ...form, quota: 7777 }).expect(200)).body.success).toBe(true);
    const issued = await call(target, root, 'post', '/api/redemption/', { name: 'statement', quota: 3000, count: 1 }).expect(200);
    const [key] = issued.body.data as string[];
    await projected(target);
    const codes = (await call(target, root, 'get', '/api/redemption/?p=0').expect(200)).body.data as Array<{ id: number; key: string }>;
    codeId = codes.find((code) => code.key === key)!.id;
    expect((await call(target, alice, 'post', '/api/user/topup', { key }).expect(200)).body.success).toBe(true);
    await projected(target);
  });
  afterAll(async () => {
    await target.close();
  });

  it('shows the owner every quota change, newest first, with kind, signed delta, balance, actor, reason, request id and reference', async () => {
    const page = await statementPage(target, alice, '/api/statement/self');
    expect(page).toMatchObject({ total: 5, page: 1, page_size: 10 });
    expect(page.items.map((line) => [line.kind, line.delta, line.balance])).toEqual([
      ['redemption', 3000, 10_777],
      ['admin_adjustment', 7777 - 1500, 7777],
      ['affiliate_transfer', 500, 1500],
      ['invite_reward', 0, 1000],
      ['gift', 1000, 1000],
    ]);
    const [redemption, adjustment, transfer, reward, gift] = page.items;
    expect(redemption).toMatchObject({
      // The credit follows the code's RedemptionCodeRedeemed (a process step), so the ledger's actor is the system.
      actor: { type: 'system', id: null, role: null },
      reason: 'redemption_credit',
      ref: { code_id: codeId },
    });
    // The owner sees that an admin (role) changed the quota, not which admin.
    expect(adjustment).toMatchObject({
      actor: { type: 'user', id: null, role: 100 },
      reason: 'admin_edit',
      ref: { before: 1500, after: 7777 },
    });
    expect(transfer).toMatchObject({ actor: { type: 'user', id: alice.id }, reason: 'aff_transfer' });
    expect(reward.ref).toEqual({ invitee_id: bob.id, aff_amount: 600 });
    expect(gift).toMatchObject({ actor: { type: 'system', id: null, role: null }, ref: { grant: 'new_user' } });
    for (const line of page.items) {
      expect(line.request_id).not.toBe('');
      expect(Math.abs(line.created_at - Date.now() / 1000)).toBeLessThan(600);
    }
    expectChain(page.items);

    const own = await statementPage(target, bob, '/api/statement/self');
    expect(own.items.map((line) => [line.kind, line.ref.grant, line.balance])).toEqual([
      ['gift', 'invitee_gift', 1250],
      ['gift', 'new_user', 1000],
    ]);
  });

  it('gives an admin any user statement by user_id, naming the admin, and keeps the chain across pages of any size', async () => {
    const page = await statementPage(target, root, `/api/statement/?user_id=${alice.id}`);
    expect(page.items[1].actor).toEqual({ type: 'user', id: root.id, role: 100 });
    for (const size of [1, 2, 3]) {
      const lines = await wholeStatement(target, root, `/api/statement/?user_id=${alice.id}`, size);
      expect(lines.map((line) => line.id)).toEqual(page.items.map((line) => line.id));
    }
    const mine = await wholeStatement(target, alice, '/api/statement/self', 2);
    expect(mine[0].balance).toBe(10_777);
    const past = await statementPage(target, alice, '/api/statement/self?p=9&page_size=2');
    expect(past).toEqual({ items: [], total: 5, page: 9, page_size: 2 });
    // A user without any account event (the root seeded without a gift has one) reads an empty statement.
    expect((await statementPage(target, root, `/api/statement/?user_id=${bob.id}&kind=redemption`)).total).toBe(0);
  });

  it('filters by kind and by time, inclusive, the balances staying the account running balance', async () => {
    const gifts = await statementPage(target, alice, '/api/statement/self?kind=gift');
    expect(gifts.items.map((line) => [line.kind, line.balance])).toEqual([['gift', 1000]]);
    const all = (await statementPage(target, alice, '/api/statement/self')).items;
    const at = all[2].created_at;
    const window = await statementPage(target, alice, `/api/statement/self?start_timestamp=${at}&end_timestamp=${at}`);
    expect(window.items.length).toBeGreaterThanOrEqual(1);
    expect(window.items.every((line) => line.created_at === at)).toBe(true);
    const future = await statementPage(target, alice, `/api/statement/self?start_timestamp=${at + 100_000}`);
    expect(future.total).toBe(0);
  });

  it('streams the same lines as an RFC 4180 CSV attachment, header first, with the filters applied', async () => {
    const json = (await statementPage(target, alice, '/api/statement/self?page_size=100')).items;
    const csv = await statementCsv(target, alice, '/api/statement/self?format=csv');
    expect(csv.type).toMatch(/^text\/csv/);
    expect(csv.disposition).toBe(`attachment; filename="statement-user-${alice.id}.csv"`);
    const [header, ...records] = csv.records;
    expect(header).toEqual([
      'id',
      'created_at',
      'time_utc',
      'kind',
      'delta',
      'balance',
      'actor_type',
      'actor_id',
      'actor_role',
      'reason',
      'request_id',
      'code_id',
      'trade_no',
      'token_id',
      'token_name',
      'model',
      'ref',
    ]);
    const column = (name: string) => header.indexOf(name);
    expect(
      records.map((record) => [
        Number(record[0]),
        record[column('kind')],
        Number(record[column('delta')]),
        Number(record[column('balance')]),
      ]),
    ).toEqual(json.map((line) => [line.id, line.kind, line.delta, line.balance]));
    expect(records[0][column('code_id')]).toBe(String(codeId));
    expect(records[1][column('actor_id')]).toBe('');
    expect(records[1][column('ref')]).toBe('{"after":7777,"before":1500}');
    expect(records[0][column('time_utc')]).toBe(new Date(json[0].created_at * 1000).toISOString());

    const admin = await statementCsv(
      target,
      root,
      `/api/statement/?user_id=${alice.id}&format=csv&kind=admin_adjustment&start_timestamp=1`,
    );
    expect(admin.disposition).toBe(`attachment; filename="statement-user-${alice.id}-from-1.csv"`);
    expect(admin.records.slice(1).map((record) => [record[column('kind')], record[column('actor_id')]])).toEqual([
      ['admin_adjustment', String(root.id)],
    ]);
  });

  it('refuses bad input with the envelope and a message naming the parameter, writing nothing', async () => {
    const before = await tablesFingerprint(target);
    const refusals: Array<[Caller, string, RegExp]> = [
      [alice, '/api/statement/self?p=abc', /^无效的参数 p/],
      [alice, '/api/statement/self?p=0', /^无效的参数 p/],
      [alice, '/api/statement/self?p=-1', /^无效的参数 p/],
      [alice, '/api/statement/self?page_size=x1', /^无效的参数 page_size/],
      [alice, '/api/statement/self?page_size=101', /^无效的参数 page_size：必须是 1 到 100 之间的整数$/],
      [alice, '/api/statement/self?page_size=1.5', /^无效的参数 page_size/],
      [alice, '/api/statement/self?p=1&p=2', /^无效的参数 p：只能给出一次$/],
      [alice, '/api/statement/self?kind=bonus', /^无效的参数 kind：只能是 gift、/],
      [alice, '/api/statement/self?start_timestamp=20&end_timestamp=10', /^无效的参数：start_timestamp 不能晚于 end_timestamp$/],
      [alice, '/api/statement/self?end_timestamp=yesterday', /^无效的参数 end_timestamp/],
      [alice, '/api/statement/self?format=xlsx', /^无效的参数 format/],
      [alice, '/api/statement/self?format=csv&kind=nope', /^无效的参数 kind/],
      [root, '/api/statement/', /^无效的参数 user_id：必须给出用户 ID$/],
      [root, '/api/statement/?user_id=abc', /^无效的参数 user_id/],
      [root, '/api/statement/?user_id=0', /^无效的参数 user_id/],
      [root, '/api/statement/?user_id=99999', /^用户不存在$/],
      [root, '/api/statement/?user_id=99999&format=csv', /^用户不存在$/],
      [alice, `/api/statement/?user_id=${alice.id}`, /^无权进行此操作，权限不足$/],
      [bob, `/api/statement/?user_id=${alice.id}&format=csv`, /^无权进行此操作，权限不足$/],
    ];
    for (const [caller, path, message] of refusals) {
      const response = await call(target, caller, 'get', path).expect(200);
      expect({ path, body: response.body }).toEqual({ path, body: { success: false, message: expect.stringMatching(message) } });
    }
    const anonymous = await call(target, null, 'get', '/api/statement/self').expect(401);
    expect(anonymous.body.success).toBe(false);
    expect(await tablesFingerprint(target)).toBe(before);
  });
});
