import { ProjectionRegistry } from '#projections/runner/projection-registry';
import { rebuildProjectionsIn } from '#server/cli/rebuild-projections';
import type { EpayFake } from '../fakes/epay/epay-fake';
import { createTestApp, type TestApp } from '../support/app';
import { compareTables, snapshotTables } from '../support/compare-tables';
import { configureEpay, deliver, placeAndSubmit } from './topup-support';
import { call, type Caller, dataSource, projected, register, rootCaller, setOptions } from './users-support';

/**
 * Rebuild equals live for online top-ups (a sibling of rebuild-equals-live.spec.ts): orders placed by several users
 * in both display modes, paid (some callbacks repeated), failed on other money, left pending, interleaved with a
 * redemption; then the projections are rebuilt from the ledger and topup_orders, account_balances and logs must
 * come back equal, row for row, and the history API must answer as before.
 */
describe('projections: rebuild equals live with online top-ups', () => {
  let target: TestApp;
  let root: Caller;
  let fake: EpayFake;

  beforeAll(async () => {
    target = await createTestApp();
    root = await rootCaller(target);
    fake = await configureEpay(target);
  });
  afterAll(async () => {
    await fake.close();
    await target.close();
  });

  it('given orders paid, failed and pending, when the projections are rebuilt, then every table is equal row for row', async () => {
    const users: Caller[] = [];
    for (let i = 0; i < 6; i++) users.push(await register(target, `tu${i}`));
    const paid: string[] = [];
    const failed: string[] = [];
    const pending: string[] = [];
    for (const [index, user] of users.entries()) {
      const tradeNo = await placeAndSubmit(target, user, 2 + index, index % 2 === 0 ? 'zfb' : 'wx');
      if (index % 3 === 2) pending.push(tradeNo);
      else if (index === 4) failed.push(tradeNo);
      else paid.push(tradeNo);
    }
    // Quota-unit display and a group ratio for a second round of orders.
    await setOptions(target, { DisplayInCurrencyEnabled: 'false', TopupGroupRatio: '{"default":1.25}' });
    for (const user of users.slice(0, 3)) paid.push(await placeAndSubmit(target, user, 1_250_000, 'wx'));
    await setOptions(target, { DisplayInCurrencyEnabled: 'true' });

    for (const tradeNo of paid) expect(await deliver(target, fake.callbackUrl(tradeNo))).toBe('success');
    for (const tradeNo of paid.slice(0, 3)) expect(await deliver(target, fake.callbackUrl(tradeNo))).toBe('success');
    for (const tradeNo of failed) expect(await deliver(target, fake.callbackUrl(tradeNo, { money: '1.00' }))).toBe('success');
    // A redemption between the top-ups, so the logs interleave both kinds of type-1 rows.
    const [key] = (await call(target, root, 'post', '/api/redemption/', { name: 'tu', quota: 1234, count: 1 })).body.data as string[];
    expect((await call(target, users[0], 'post', '/api/user/topup', { key })).body.success).toBe(true);

    await projected(target);
    const registry = target.app.get(ProjectionRegistry);
    const tables = [...new Set(registry.all().flatMap((projection) => projection.tables))].sort();
    expect(tables).toEqual(expect.arrayContaining(['account_balances', 'logs', 'topup_orders']));
    const db = dataSource(target);
    const live = await snapshotTables(db, tables);
    expect(live.topup_orders).toHaveLength(9);
    const statuses = live.topup_orders.map((row) => (JSON.parse(row) as { status: string }).status).sort();
    expect(statuses).toEqual(['failed', 'pending', 'pending', ...Array(6).fill('success')]);
    const historyBefore = (await call(target, root, 'get', '/api/user/topup?page_size=100')).body.data;

    const report = await rebuildProjectionsIn(target.app, { waitSeconds: 30 }, () => undefined);
    expect(report.eventsReplayed).toBe(report.position);
    const comparison = await compareTables(live, db, tables);
    expect(comparison.differences).toEqual([]);
    expect(comparison.summary).toMatch(/^equal/);
    expect((await call(target, root, 'get', '/api/user/topup?page_size=100')).body.data).toEqual(historyBefore);
  }, 120_000);
});
