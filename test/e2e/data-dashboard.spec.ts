import type OpenAI from 'openai';
import { rebuildProjectionsIn } from '#server/cli/rebuild-projections';
import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { createTestApp, type TestApp } from '../support/app';
import { compareTables, snapshotTables } from '../support/compare-tables';
import { createChannel, listen, sdk, userWithToken } from './relay-support';
import { call, type Caller, dataSource, eventStore, projected, rootCaller, setOptions } from './users-support';

jest.setTimeout(120_000);

type Row = {
  id: number;
  user_id: number;
  username: string;
  model_name: string;
  created_at: number;
  token_used: number;
  count: number;
  quota: number;
};

/**
 * The data dashboard: relay charges folded into hourly `quota_data` rows as soon as the projector passes them,
 * DataExportEnabled and LogConsumeEnabled honoured per charge, GET /api/data/ (admin) and /api/data/self, and a
 * rebuild from the ledger giving the same rows.
 */
describe('data dashboard', () => {
  let target: TestApp;
  let root: Caller;
  let alice: Caller & { key: string };
  let bob: Caller & { key: string };
  let clients: { alice: OpenAI; bob: OpenAI };
  const upstream = new OpenAIUpstreamFake();
  const now = () => Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    await upstream.start();
    target = await createTestApp();
    const baseURL = await listen(target);
    root = await rootCaller(target);
    await createChannel(target, root, { type: 1, name: 'dash', baseUrl: upstream.baseUrl, models: ['gpt-3.5-turbo', 'gpt-4o-mini'] });
    alice = await userWithToken(target, 'dash-alice', 50_000_000);
    bob = await userWithToken(target, 'dash-bob', 50_000_000);
    clients = { alice: sdk(baseURL, alice.key), bob: sdk(baseURL, bob.key) };
  });
  afterAll(async () => {
    await target?.close();
    await upstream.close();
  });

  const chat = (client: OpenAI, model: string, content = 'hello') =>
    client.chat.completions.create({ model, messages: [{ role: 'user', content }] });
  const range = () => `start_timestamp=${now() - 7200}&end_timestamp=${now() + 3600}`;
  const data = async (caller: Caller, path: string): Promise<Row[]> => {
    const { body } = await call(target, caller, 'get', path).expect(200);
    expect(body).toMatchObject({ success: true, message: '' });
    return body.data;
  };
  /** What the dashboard must hold: the consume logs of the given users summed per user, model and hour. */
  const fromLogs = async (userIds: number[]) =>
    dataSource(target).query(
      `SELECT user_id, username, model_name, created_at - created_at % 3600 AS created_at, count(*)::int AS count,
              sum(quota)::int AS quota, sum(prompt_tokens + completion_tokens)::int AS token_used
         FROM logs WHERE type = 2 AND user_id = ANY($1) GROUP BY 1, 2, 3, 4 ORDER BY 4, 3, 1`,
      [userIds],
    ) as Promise<Array<Omit<Row, 'id'>>>;
  const withoutId = (rows: Row[]) => rows.map(({ id: _id, ...rest }) => ({ ...rest, created_at: Number(rest.created_at) }));

  it('folds every charge into its hourly row at once, count, quota and token_used added on every charge', async () => {
    await chat(clients.alice, 'gpt-3.5-turbo');
    await chat(clients.alice, 'gpt-3.5-turbo', 'a longer prompt than the first one');
    await chat(clients.alice, 'gpt-4o-mini');
    await chat(clients.bob, 'gpt-3.5-turbo');
    await projected(target);

    const aliceRows = await data(root, `/api/data/?${range()}&username=dash-alice`);
    const expected = await fromLogs([alice.id]);
    expect(expected.reduce((sum, row) => sum + row.count, 0)).toBe(3);
    expect(withoutId(aliceRows).sort((a, b) => a.created_at - b.created_at || a.model_name.localeCompare(b.model_name))).toEqual(
      expected.map((row) => ({ ...row, created_at: Number(row.created_at) })),
    );
    expect(aliceRows.every((row) => row.id > 0 && row.token_used > 0)).toBe(true);
    // The row that took two charges has both requests' tokens (new-api kept only the first one's).
    const turbo = aliceRows.filter((row) => row.model_name === 'gpt-3.5-turbo');
    expect(turbo.reduce((sum, row) => sum + row.count, 0)).toBe(2);
  });

  it('answers admins every user summed per model and hour, user fields empty', async () => {
    const grouped = await data(root, `/api/data/?${range()}`);
    const logs = await fromLogs([alice.id, bob.id]);
    const sums = new Map<string, { count: number; quota: number; token_used: number }>();
    for (const row of logs) {
      const key = `${row.model_name}@${row.created_at}`;
      const sum = sums.get(key) ?? { count: 0, quota: 0, token_used: 0 };
      sums.set(key, { count: sum.count + row.count, quota: sum.quota + row.quota, token_used: sum.token_used + row.token_used });
    }
    expect(grouped).toHaveLength(sums.size);
    for (const row of grouped) {
      expect(row).toMatchObject({ id: 0, user_id: 0, username: '', ...sums.get(`${row.model_name}@${row.created_at}`) });
    }
    expect(grouped.filter((row) => row.model_name === 'gpt-3.5-turbo').reduce((sum, row) => sum + row.count, 0)).toBe(3);
  });

  it("answers a user their own rows only, and refuses a span over 30 days with new-api's message", async () => {
    const own = await data(bob, `/api/data/self?${range()}`);
    expect(own.length).toBeGreaterThan(0);
    expect(own.every((row) => row.user_id === bob.id && row.username === 'dash-bob')).toBe(true);
    // A username is not the self route's business: still the caller's own rows.
    expect(await data(bob, `/api/data/self?${range()}&username=dash-alice`)).toEqual(own);
    const start = now() - 2_592_001;
    expect((await call(target, bob, 'get', `/api/data/self?start_timestamp=${start}&end_timestamp=${start + 2_592_001}`)).body).toEqual({
      success: false,
      message: '时间跨度不能超过 1 个月',
    });
    // Admins have no span limit.
    expect((await data(root, `/api/data/?start_timestamp=0&end_timestamp=${now() + 3600}&username=dash-bob`)).length).toBe(own.length);
  });

  it('reads bad bounds as 0 as new-api does (no rows, or the span refusal), and writes nothing', async () => {
    const head = await eventStore(target).headPosition();
    const before = await snapshotTables(dataSource(target), ['quota_data']);
    expect(await data(bob, '/api/data/self?start_timestamp=abc&end_timestamp=')).toEqual([]);
    expect(await data(root, '/api/data/?start_timestamp=x&end_timestamp=y')).toEqual([]);
    expect(await data(root, `/api/data/?${range()}&username=nobody%00`)).toEqual([]);
    expect(await data(root, `/api/data/?${range()}&username=nobody`)).toEqual([]);
    expect((await call(target, bob, 'get', `/api/data/self?start_timestamp=-1&end_timestamp=${now()}`)).body).toEqual({
      success: false,
      message: '时间跨度不能超过 1 个月',
    });
    expect((await call(target, bob, 'get', `/api/data/?${range()}`)).body).toEqual({ success: false, message: '无权进行此操作，权限不足' });
    await call(target, null, 'get', `/api/data/self?${range()}`).expect(401);
    expect(await eventStore(target).headPosition()).toBe(head);
    const comparison = await compareTables(before, dataSource(target), ['quota_data']);
    expect(comparison.equal).toBe(true);
  });

  it('leaves out charges settled while DataExportEnabled or LogConsumeEnabled was off, whatever the option says later', async () => {
    const total = async () => (await data(bob, `/api/data/self?${range()}`)).reduce((sum, row) => sum + row.count, 0);
    const counted = await total();
    await setOptions(target, { DataExportEnabled: 'false' });
    await chat(clients.bob, 'gpt-4o-mini', 'not exported');
    await setOptions(target, { DataExportEnabled: 'true', LogConsumeEnabled: 'false' });
    await chat(clients.bob, 'gpt-4o-mini', 'not logged');
    await setOptions(target, { LogConsumeEnabled: 'true' });
    await projected(target);
    expect(await total()).toBe(counted);
    const [{ n }] = await dataSource(target).query(`SELECT count(*)::int AS n FROM logs WHERE type = 2 AND user_id = $1`, [bob.id]);
    expect(n).toBe(counted + 1); // the not-exported charge is still logged
    await chat(clients.bob, 'gpt-4o-mini', 'exported again');
    await projected(target);
    expect(await total()).toBe(counted + 1);
  });

  it('gives the same rows when rebuilt from the ledger', async () => {
    await projected(target);
    const head = await eventStore(target).headPosition();
    const live = await snapshotTables(dataSource(target), ['quota_data']);
    expect(live.quota_data.length).toBeGreaterThanOrEqual(3);
    await dataSource(target).query('UPDATE quota_data SET token_used = 0, count = count + 1');
    const report = await rebuildProjectionsIn(target.app, { projections: ['quota-data'], waitSeconds: 10 }, () => undefined);
    expect(report.position).toBe(head);
    const comparison = await compareTables(live, dataSource(target), ['quota_data']);
    expect(comparison.summary).toMatch(/^equal/);
  });
});
