import { ProjectionRunner } from '#projections/runner/projection-runner';
import type { TestApp } from '../support/app';
import { compareTables, snapshotTables } from '../support/compare-tables';
import { type Charge, type ChargeName, logsApiFixture } from './logs-api-support';
import { balanceRow, type Caller, call, dataSource, projected, stateSnapshot } from './users-support';

/**
 * The log API's writes and refusals over the same settled relay charges: the role guard, junk query strings, and
 * DELETE /api/log/ (the purge as a ledger event that a rebuild replays). The read routes are in logs-api.spec.ts.
 */
describe('log API (/api/log): role guard, bad input and purge', () => {
  const fixture = logsApiFixture();
  const { now, settle, list, requestIds } = fixture;
  let target: TestApp;
  let root: Caller;
  let alice: Caller;
  let charges: Record<ChargeName, Charge>;

  beforeAll(() => {
    ({ target, root, alice, charges } = fixture.context);
  });

  describe('role guard and bad input', () => {
    it('refuses the admin routes to a user (HTTP 200, success false) and every route to an anonymous caller (401)', async () => {
      for (const [method, path] of [
        ['get', '/api/log/'],
        ['get', '/api/log/stat'],
        ['get', '/api/log/search?keyword=2'],
        ['delete', `/api/log/?target_timestamp=${now}`],
      ] as const) {
        const response = await call(target, alice, method, path).expect(200);
        expect(response.body).toEqual({ success: false, message: '无权进行此操作，权限不足' });
      }
      for (const path of ['/api/log/self/', '/api/log/self/stat', '/api/log/self/search?keyword=2', '/api/log/']) {
        const response = await call(target, null, 'get', path).expect(401);
        expect(response.body.success).toBe(false);
      }
    });

    it('answers junk query strings with the documented shapes, never a 5xx, and changes nothing', async () => {
      const before = await stateSnapshot(target);
      const junk = [
        '/api/log/?p=abc&page_size=1e99&type=x&channel=99999999999999999999&start_timestamp=-1',
        '/api/log/?page_size=5&model_name=%00&token_name=%5C',
        '/api/log/?page_size=5&type=99999999999&p=99999999999999999999',
        '/api/log/?page_size=5&username[]=a&model_name=%25%25%5C',
        '/api/log/stat?channel=-99999999999999999999&model_name=%5C&start_timestamp=abc',
        '/api/log/stat?token_name=%00',
      ];
      for (const path of junk) {
        const response = await call(target, root, 'get', path).expect(200);
        expect(response.body.success).toBe(true);
      }
      expect((await list(root, '/api/log/?page_size=5&model_name=%00')).items).toEqual([]);
      expect((await list(root, '/api/log/?p=99999999999999999999&page_size=5')).items).toEqual([]);
      for (const path of [
        '/api/log/self/?page_size=%00&p=-1&type=%5C',
        '/api/log/self/stat?channel=x&token_name=%00',
        '/api/log/self/search?keyword=%00',
      ]) {
        const response = await call(target, alice, 'get', path).expect(200);
        expect(response.body.success).toBe(true);
      }
      for (const query of [
        '',
        '?target_timestamp=',
        '?target_timestamp=0',
        '?target_timestamp=abc',
        '?target_timestamp=1.5',
        // Out of range or not finite: refused, never saturated into "purge everything" (new-api's ParseInt).
        '?target_timestamp=99999999999999999999',
        '?target_timestamp=-99999999999999999999',
        '?target_timestamp=9007199254740993',
        '?target_timestamp=1e99',
        '?target_timestamp=Infinity',
        '?target_timestamp=NaN',
      ]) {
        const response = await call(target, root, 'delete', `/api/log/${query}`).expect(200);
        expect(response.body).toEqual({ success: false, message: 'target timestamp is required' });
      }
      expect((await call(target, root, 'delete', '/api/log/?target_timestamp=-5').expect(200)).body).toEqual({
        success: true,
        message: '',
        data: 0,
      });
      // Older than every row: nothing to delete, so nothing is recorded either (the answer is still 0).
      expect((await call(target, root, 'delete', '/api/log/?target_timestamp=1').expect(200)).body).toEqual({
        success: true,
        message: '',
        data: 0,
      });
      expect(await stateSnapshot(target)).toBe(before);
      expect(await dataSource(target).query("SELECT count(*)::int AS count FROM events WHERE stream_id = 'logs'")).toEqual([{ count: 0 }]);
    });
  });

  describe('DELETE /api/log/?target_timestamp', () => {
    it('deletes the rows older than the timestamp, answers the count, and a rebuild keeps them deleted', async () => {
      const response = await call(target, root, 'delete', `/api/log/?target_timestamp=${now - 3600}`).expect(200);
      expect(response.body).toEqual({ success: true, message: '', data: 2 });
      const after = await list(root, '/api/log/?page_size=50');
      expect(after.total).toBe(4);
      expect(requestIds(after.items)).toEqual(['b1', 'a3', 'a2']);

      const events: Array<{ type: string; data: Record<string, unknown> }> = await dataSource(target).query(
        "SELECT type, data FROM events WHERE stream_id = 'logs'",
      );
      expect(events).toEqual([{ type: 'LogsPurged', data: { before: now - 3600, adminId: root.id } }]);

      // Settled after the purge although admitted before its timestamp: the purge is past, the row stays.
      const late: Charge = { ...charges.a1, requestId: 'req-late', quota: 7, at: now - 99999 };
      await settle(late);
      await projected(target);
      expect((await list(root, '/api/log/?page_size=50')).total).toBe(5);
      // The balances are not a log: a purge leaves them alone.
      expect(await balanceRow(target, alice.id)).toMatchObject({ used_quota: 607, request_count: 4 });

      const tables = ['logs', 'log_purges', 'account_balances'];
      const live = await snapshotTables(dataSource(target), tables);
      // Damage the read models first, so an equal result shows the replay rebuilt them (purge included).
      await dataSource(target).query('UPDATE logs SET quota = 0; DELETE FROM log_purges; UPDATE account_balances SET used_quota = 0');
      const report = await target.app.get(ProjectionRunner).rebuild({ projections: ['logs', 'account-balances'] });
      expect(report.projections.find((projection) => projection.name === 'logs')).toMatchObject({ rows: { logs: 5, log_purges: 1 } });
      const comparison = await compareTables(live, dataSource(target), tables);
      expect(comparison.summary).toMatch(/^equal/);
      expect(live.logs).toHaveLength(5);
      expect(live.log_purges).toHaveLength(1);
    });

    it('a later purge deletes the late row too, and then answers 0 when nothing is that old', async () => {
      const first = await call(target, root, 'delete', `/api/log/?target_timestamp=${now - 3600}`).expect(200);
      expect(first.body).toEqual({ success: true, message: '', data: 1 });
      const purges = async () => dataSource(target).query("SELECT count(*)::int AS count FROM events WHERE stream_id = 'logs'");
      const recorded = await purges();
      const again = await call(target, root, 'delete', `/api/log/?target_timestamp=${now - 3600}`).expect(200);
      expect(again.body).toEqual({ success: true, message: '', data: 0 });
      // A purge that deletes nothing appends nothing.
      expect(await purges()).toEqual(recorded);
      expect(requestIds((await list(root, '/api/log/?page_size=50')).items)).toEqual(['b1', 'a3', 'a2']);
    });
  });
});
