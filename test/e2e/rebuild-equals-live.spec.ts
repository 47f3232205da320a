import { ProjectionRegistry } from '#projections/runner/projection-registry';
import { rebuildProjectionsIn } from '#server/cli/rebuild-projections';
import { EVENT_STORE, type EventStore } from '#server/ledger/event-store.port';
import { createTestApp, type TestApp } from '../support/app';
import { LEDGERS, type LedgerUnderTest } from '../support/ledgers';
import { compareTables, snapshotTables } from '../support/compare-tables';
import { balanceRow, call, type Caller, dataSource, projected, register, rootCaller, setOptions } from './users-support';

/**
 * Rebuild equals live: a scripted scenario through the HTTP API (50 registrations, a third of them invited, with
 * the new-user, inviter and invitee gifts; affiliate transfers; admin quota edits; admin create and manage;
 * redemption codes issued, edited, disabled, deleted and redeemed), then the code `npm run projections:rebuild`
 * runs (rebuildProjectionsIn) empties every projection table and replays the ledger: the tables must come back equal, row for row.
 */
describe.each(LEDGERS)('projections: rebuild equals live (%s)', (_name, startLedger) => {
  let target: TestApp;
  let root: Caller;
  let ledger: LedgerUnderTest;

  beforeAll(async () => {
    ledger = await startLedger();
    target = await createTestApp({ env: ledger.env });
    root = await rootCaller(target);
  });
  afterAll(async () => {
    await target?.close();
    await ledger?.close();
  });

  /** Every table the registry knows, plus the two this read models write (they must be among them). */
  function projectionTables(): string[] {
    const tables = target.app
      .get(ProjectionRegistry)
      .all()
      .flatMap((projection) => projection.tables);
    expect(tables).toEqual(expect.arrayContaining(['account_balances', 'logs', 'redemptions']));
    return [...new Set(tables)].sort();
  }

  async function expectOk(response: Promise<{ body: { success: boolean; message: string } }>, what: string): Promise<void> {
    const { body } = await response;
    if (!body.success) throw new Error(`${what}: ${body.message}`);
  }

  it('given a scripted history through the API, when the projections are rebuilt, then every table is equal row for row', async () => {
    // Small unit so invite earnings reach the transfer minimum (QuotaPerUnit) quickly.
    await setOptions(target, { QuotaForNewUser: '1000', QuotaForInviter: '400', QuotaForInvitee: '250', QuotaPerUnit: '500' });

    // 50 users register: the first 8 invite nobody's code; of the rest every third uses one of theirs.
    const users: Array<Caller & { password: string }> = [];
    const affCodes: string[] = [];
    for (let i = 0; i < 50; i++) {
      const inviterCode = i >= 8 && i % 3 === 0 ? affCodes[i % affCodes.length] : undefined;
      const user = await register(target, `rb${i}`, { affCode: inviterCode });
      users.push(user);
      if (i < 8) {
        const aff = await call(target, user, 'get', '/api/user/aff');
        affCodes.push(aff.body.data as string);
      }
    }
    await projected(target);
    const invited = (await dataSource(target).query('SELECT count(*)::int AS n FROM users WHERE inviter_id > 0'))[0].n as number;
    expect(invited).toBeGreaterThanOrEqual(10);

    // Affiliate transfers: every inviter with earnings moves the minimum, some move everything, one overdraws.
    let transfers = 0;
    for (const inviter of users.slice(0, 8)) {
      const balance = await balanceRow(target, inviter.id);
      const affQuota = balance?.aff_quota ?? 0;
      if (affQuota >= 500) {
        await expectOk(call(target, inviter, 'post', '/api/user/aff_transfer', { quota: 500 }), `transfer by ${inviter.username}`);
        transfers++;
        const rest = affQuota - 500;
        if (rest >= 500 && inviter.id % 2 === 0) {
          await expectOk(
            call(target, inviter, 'post', '/api/user/aff_transfer', { quota: rest }),
            `second transfer by ${inviter.username}`,
          );
          transfers++;
        }
      }
      const refused = await call(target, inviter, 'post', '/api/user/aff_transfer', { quota: 10_000_000 });
      expect(refused.body).toEqual({ success: false, message: '划转失败 邀请额度不足！' });
    }
    expect(transfers).toBeGreaterThan(0);

    // Admin quota edits (some up, some down, one to zero) through PUT /api/user/.
    for (const [index, user] of users.entries()) {
      if (index % 4 !== 1) continue;
      const form = (await call(target, root, 'get', `/api/user/${user.id}`)).body.data;
      await expectOk(
        call(target, root, 'put', '/api/user/', { ...form, quota: index % 8 === 1 ? 0 : 5000 + index * 13 }),
        `edit ${user.username}`,
      );
    }

    // Admin create and manage.
    for (let i = 0; i < 3; i++) {
      await expectOk(
        call(target, root, 'post', '/api/user/', { username: `made${i}`, password: 'made-password', display_name: `Made ${i}` }),
        `create made${i}`,
      );
    }
    const manage = (id: number, action: string) =>
      expectOk(call(target, root, 'post', '/api/user/manage', { id, action }), `${action} ${id}`);
    await manage(users[2].id, 'promote');
    await manage(users[3].id, 'disable');
    await manage(users[3].id, 'enable');
    await manage(users[5].id, 'disable');
    await manage(users[7].id, 'delete');
    // A hard delete of a user with ledger history is refused (their events stay replayable); it changes nothing.
    expect((await call(target, root, 'delete', `/api/user/${users[9].id}`)).body).toEqual({
      success: false,
      message: '该用户的账本已有记录，无法彻底删除，请改用注销',
    });
    // A gift after the deletions, so the ledger interleaves streams of live and deleted users.
    await register(target, 'rb-late', { affCode: affCodes[0] });

    // Redemption codes: a batch, edits, a disabled and a deleted code, redeems (one refused), a second batch.
    const issued = await call(target, root, 'post', '/api/redemption/', { name: 'rb', quota: 3000, count: 6 });
    const keys = issued.body.data as string[];
    const codes = (await call(target, root, 'get', '/api/redemption/?p=0')).body.data as Array<{ id: number; key: string }>;
    const idOf = (key: string) => codes.find((code) => code.key === key)!.id;
    await expectOk(call(target, root, 'put', '/api/redemption/', { id: idOf(keys[0]), name: 'rb-edited', quota: 4000 }), 'edit code');
    await expectOk(call(target, root, 'put', '/api/redemption/?status_only=true', { id: idOf(keys[1]), status: 2 }), 'disable code');
    await expectOk(call(target, root, 'delete', `/api/redemption/${idOf(keys[2])}`), 'delete code');
    for (const [index, key] of [keys[0], keys[3], keys[4]].entries()) {
      await expectOk(call(target, users[10 + index], 'post', '/api/user/topup', { key }), `redeem ${key}`);
    }
    expect((await call(target, users[13], 'post', '/api/user/topup', { key: keys[1] })).body.success).toBe(false);
    await expectOk(call(target, root, 'delete', `/api/redemption/${idOf(keys[3])}`), 'delete a used code');
    await expectOk(call(target, root, 'post', '/api/redemption/', { name: 'rb2', quota: 0, count: 2 }), 'second batch');

    await projected(target);
    const tables = projectionTables();
    const db = dataSource(target);
    const live = await snapshotTables(db, tables);
    expect(live.account_balances.length).toBeGreaterThanOrEqual(50);
    expect(live.logs.length).toBeGreaterThan(50);
    expect(live.redemptions).toHaveLength(8);

    const lines: string[] = [];
    const report = await rebuildProjectionsIn(target.app, { waitSeconds: 30 }, (line) => lines.push(line));
    // Every ledger event replayed, up to the head (EventStoreDB positions are log offsets, not a count).
    const store = target.app.get<EventStore>(EVENT_STORE);
    expect(report.position).toBe(await store.headPosition());
    expect(report.eventsReplayed).toBe((await store.readAll()).length);
    expect(lines[0]).toMatch(/^rebuilding all projections/);

    const comparison = await compareTables(live, db, tables);
    expect(comparison.summary).toMatch(/^equal/);
    expect(comparison.differences).toEqual([]);

    // The rebuilt read models still serve the API: a self read after the rebuild shows the ledger's balance.
    const self = await call(target, users[0], 'get', '/api/user/self');
    const balance = await balanceRow(target, users[0].id);
    expect(self.body.data).toMatchObject({
      quota: balance?.quota,
      aff_quota: balance?.aff_quota,
      aff_history_quota: balance?.aff_history_quota,
    });
  }, 120_000);
});
