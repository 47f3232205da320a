import { createTestApp, type TestApp } from '../support/app';
import { balanceRow, call, type Caller, dataSource, logRows, projected, register, rootCaller, setOptions } from './users-support';

/**
 * Redemption codes end to end: the admin routes (create, list, search, get, edit, status, delete) and
 * POST /api/user/topup, with new-api's messages; every refusal leaves the codes, balances, logs and ledger alone.
 */
describe('redemptions API', () => {
  let target: TestApp;
  let root: Caller;
  let alice: Caller;
  let bob: Caller;

  beforeAll(async () => {
    target = await createTestApp();
    await setOptions(target, { QuotaForNewUser: '1000', QuotaPerUnit: '500000', DisplayInCurrencyEnabled: 'true' });
    root = await rootCaller(target);
    alice = await register(target, 'alice');
    bob = await register(target, 'bob');
  });
  afterAll(async () => {
    await target.close();
  });

  const db = () => dataSource(target);

  async function state(): Promise<string> {
    await projected(target);
    const codes = await db().query('SELECT * FROM redemptions ORDER BY id');
    const balances = await db().query('SELECT * FROM account_balances ORDER BY user_id');
    const logs = await db().query('SELECT * FROM logs ORDER BY id');
    const events = await db().query('SELECT count(*)::int AS count FROM events');
    return JSON.stringify({ codes, balances, logs, events });
  }

  async function refused(caller: Caller, method: 'get' | 'post' | 'put' | 'delete', path: string, body: unknown, message: string | RegExp) {
    const before = await state();
    const response = await call(target, caller, method, path, body).expect(200);
    expect(response.body).toEqual({ success: false, message: typeof message === 'string' ? message : expect.stringMatching(message) });
    expect(await state()).toEqual(before);
  }

  async function issue(name: string, quota: number, count: number): Promise<string[]> {
    const response = await call(target, root, 'post', '/api/redemption/', { name, quota, count }).expect(200);
    expect(response.body).toMatchObject({ success: true, message: '' });
    return response.body.data as string[];
  }

  async function codeByKey(key: string): Promise<Record<string, unknown>> {
    const rows = (await call(target, root, 'get', '/api/redemption/?p=0').expect(200)).body.data as Array<Record<string, unknown>>;
    const found = rows.find((row) => row.key === key);
    if (!found) throw new Error(`no code ${key} on the first page`);
    return found;
  }

  it('creates a batch of 32-hex keys, lists them newest first 10 a page, stores quota 0 as 100', async () => {
    const keys = await issue('batch', 0, 12);
    expect(keys).toHaveLength(12);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(keys).size).toBe(12);
    const page0 = (await call(target, root, 'get', '/api/redemption/?p=0').expect(200)).body;
    expect(page0.success).toBe(true);
    expect(page0.data).toHaveLength(10);
    expect(page0.data[0]).toEqual({
      id: expect.any(Number),
      user_id: root.id,
      key: keys[11],
      status: 1,
      name: 'batch',
      quota: 100,
      created_time: expect.any(Number),
      redeemed_time: 0,
      count: 0,
      used_user_id: 0,
      DeletedAt: null,
    });
    const ids = page0.data.map((row: { id: number }) => row.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const page1 = (await call(target, root, 'get', '/api/redemption/?p=1').expect(200)).body.data;
    expect(page1).toHaveLength(2);
    expect((await call(target, root, 'get', '/api/redemption/?p=-3').expect(200)).body.data).toEqual(page0.data);
  });

  it('refuses bad create input with new-api messages and writes nothing', async () => {
    await refused(root, 'post', '/api/redemption/', { name: '', quota: 1, count: 1 }, '兑换码名称长度必须在1-20之间');
    await refused(root, 'post', '/api/redemption/', { name: '兑换码名称七个字', quota: 1, count: 1 }, '兑换码名称长度必须在1-20之间');
    await refused(root, 'post', '/api/redemption/', { name: 'x', quota: 1, count: 0 }, '兑换码个数必须大于0');
    await refused(root, 'post', '/api/redemption/', { name: 'x', quota: 1, count: -1 }, '兑换码个数必须大于0');
    await refused(root, 'post', '/api/redemption/', { name: 'x', quota: 1, count: 101 }, '一次兑换码批量生成的个数不能大于 100');
    await refused(root, 'post', '/api/redemption/', { name: 'x', quota: -1, count: 1 }, '兑换码额度必须在 0 到 1000000000000 之间');
    await refused(root, 'post', '/api/redemption/', { name: 'x', quota: 1e13, count: 1 }, '兑换码额度必须在 0 到 1000000000000 之间');
    await refused(root, 'post', '/api/redemption/', { name: 'x', quota: '5', count: 1 }, '无效的参数');
    await refused(root, 'post', '/api/redemption/', { name: 'x', quota: 1.5, count: 1 }, '无效的参数');
    await refused(root, 'post', '/api/redemption/', { name: 'x', quota: 1, count: 1e300 }, '无效的参数');
    // Undecodable JSON is answered by the HTTP layer (its wording is not ours).
    await refused(root, 'post', '/api/redemption/', '{"name":', /\S/);
    await refused(alice, 'post', '/api/redemption/', { name: 'x', quota: 1, count: 1 }, '无权进行此操作，权限不足');
  });

  it('searches by id or name prefix, gets one, and answers a missing or bad id', async () => {
    const [key] = await issue('findme', 700, 1);
    const code = await codeByKey(key);
    const byName = (await call(target, root, 'get', '/api/redemption/search?keyword=find').expect(200)).body;
    expect(byName).toEqual({ success: true, message: '', data: [code] });
    expect((await call(target, root, 'get', '/api/redemption/search?keyword=me').expect(200)).body.data).toEqual([]);
    expect((await call(target, root, 'get', `/api/redemption/search?keyword=${code.id}`).expect(200)).body.data).toEqual([code]);
    expect((await call(target, root, 'get', '/api/redemption/search?keyword=%25').expect(200)).body.data).toEqual([]);
    expect((await call(target, root, 'get', '/api/redemption/search?keyword=a%00b').expect(200)).body.data).toEqual([]);
    expect((await call(target, root, 'get', `/api/redemption/${code.id}`).expect(200)).body).toEqual({
      success: true,
      message: '',
      data: code,
    });
    await refused(root, 'get', '/api/redemption/987654', undefined, 'record not found');
    await refused(root, 'get', '/api/redemption/0', undefined, 'id 为空！');
    await refused(root, 'get', '/api/redemption/abc', undefined, '无效的参数');
  });

  it('edits name and quota, changes the status, soft-deletes; refuses unknown statuses and missing ids', async () => {
    const [key] = await issue('edit', 1000, 1);
    const { id } = await codeByKey(key);
    const edited = (await call(target, root, 'put', '/api/redemption/', { id, name: 'edited', quota: 2000 }).expect(200)).body;
    expect(edited).toEqual({ success: true, message: '', data: expect.objectContaining({ id, name: 'edited', quota: 2000, status: 1 }) });
    const disabled = (await call(target, root, 'put', '/api/redemption/?status_only=true', { id, status: 2 }).expect(200)).body;
    expect(disabled.data).toMatchObject({ id, status: 2, name: 'edited' });
    await refused(bob, 'post', '/api/user/topup', { key }, '兑换失败，该兑换码已被使用');
    expect((await call(target, root, 'put', '/api/redemption/?status_only=1', { id, status: 1 }).expect(200)).body.data).toMatchObject({
      status: 1,
    });
    for (const status of [0, 3, 4, -1]) {
      await refused(root, 'put', '/api/redemption/?status_only=true', { id, status }, '无效的参数');
    }
    await refused(root, 'put', '/api/redemption/', { id, name: '', quota: 1 }, '兑换码名称长度必须在1-20之间');
    await refused(root, 'put', '/api/redemption/', { id, quota: -5 }, '兑换码额度必须在 0 到 1000000000000 之间');
    await refused(root, 'put', '/api/redemption/', { name: 'x', quota: 1 }, 'id 为空！');
    await refused(root, 'put', '/api/redemption/', { id: 987654, name: 'x' }, 'record not found');
    expect((await call(target, root, 'delete', `/api/redemption/${id}`).expect(200)).body).toEqual({ success: true, message: '' });
    await refused(root, 'get', `/api/redemption/${id}`, undefined, 'record not found');
    await refused(root, 'delete', `/api/redemption/${id}`, undefined, 'record not found');
    await refused(alice, 'post', '/api/user/topup', { key }, '兑换失败，无效的兑换码');
    const row = (await db().query('SELECT deleted_at FROM redemptions WHERE id = $1', [id]))[0];
    expect(row.deleted_at).toBeInstanceOf(Date);
  });

  it('redeems once: quota, a top-up log row, data = quota; then the code is used and can no longer be edited', async () => {
    const [key] = await issue('gift', 250000, 1);
    const { id } = await codeByKey(key);
    const before = (await balanceRow(target, alice.id))?.quota ?? 0;
    const response = await call(target, alice, 'post', '/api/user/topup', { key }).expect(200);
    expect(response.body).toEqual({ success: true, message: '', data: 250000 });
    expect((await balanceRow(target, alice.id))?.quota).toBe(before + 250000);
    const self = (await call(target, alice, 'get', '/api/user/self').expect(200)).body.data;
    expect(self.quota).toBe(before + 250000);
    const topUps = (await logRows(target, alice.id)).filter((row) => row.type === 1);
    expect(topUps).toEqual([{ type: 1, content: `通过兑换码充值 ＄0.500000 额度，兑换码ID ${id}`, username: 'alice' }]);
    expect(await codeByKey(key)).toMatchObject({ status: 3, used_user_id: alice.id, redeemed_time: expect.any(Number) });

    await refused(alice, 'post', '/api/user/topup', { key }, '兑换失败，该兑换码已被使用');
    await refused(bob, 'post', '/api/user/topup', { key }, '兑换失败，该兑换码已被使用');
    await refused(root, 'put', '/api/redemption/', { id, name: 'again', quota: 1 }, '兑换码已被使用，无法编辑');
    await refused(root, 'put', '/api/redemption/?status_only=true', { id, status: 1 }, '兑换码已被使用，无法启用或禁用');
    await refused(root, 'put', '/api/redemption/?status_only=true', { id, status: 2 }, '兑换码已被使用，无法启用或禁用');
  });

  it('refuses a wrong, empty or malformed key and changes nothing', async () => {
    await refused(alice, 'post', '/api/user/topup', { key: 'f'.repeat(32) }, '兑换失败，无效的兑换码');
    await refused(alice, 'post', '/api/user/topup', { key: "' OR '1'='1" }, '兑换失败，无效的兑换码');
    await refused(alice, 'post', '/api/user/topup', { key: '' }, '兑换失败，未提供兑换码');
    await refused(alice, 'post', '/api/user/topup', {}, '兑换失败，未提供兑换码');
    await refused(alice, 'post', '/api/user/topup', { key: 5 }, '无效的参数');
    await refused(alice, 'post', '/api/user/topup', '[1]', '无效的参数');
    const anonymous = await call(target, null, 'post', '/api/user/topup', { key: 'x' });
    expect(anonymous.status).toBe(401);
  });
});
