import { getQueueToken } from '@nestjs/bullmq';
import { CommandBus } from '@nestjs/cqrs';
import type { Queue } from 'bullmq';
import { ProjectionRunner } from '#projections/runner/projection-runner';
import { newEvent, systemActor } from '#server/ledger/event-envelope';
import { deterministicEventId } from '#server/ledger/event-ids';
import { accountStream } from '#server/ledger/streams';
import { CHANNEL_OUTCOMES_QUEUE, ChannelOutcomeReporter } from '#server/modules/channel-health/index';
import { ChangeChannelStatusCommand } from '#server/modules/channels/usecases/change-channel-status/change-channel-status.command';
import type { TestApp } from '../support/app';
import { compareTables, snapshotTables } from '../support/compare-tables';
import { channelsApiFixture, storedChannelKeys } from './channels-api-support';
import { call, type Caller, changedRows, dataSource, eventStore, projected, tablesSnapshot } from './users-support';

/** Channels API: deleting (one, the disabled ones, a selection), fixing routing rows, the channel status projection and the relay's outcome reporter. */
describe('channels API: deletes, status and outcomes', () => {
  const fixture = channelsApiFixture();
  const { create, router, getChannel, autoDisable, abilities } = fixture;
  let target: TestApp;
  let root: Caller;
  let admin: Caller;
  let common: Caller;

  beforeAll(() => {
    ({ target, root, admin, common } = fixture.context);
  });

  describe('deletes and fix', () => {
    it('saves the edit form of an auto-disabled channel (status 3 sent back unchanged) without enabling it', async () => {
      const [id] = await create({ name: 'auto-edit', key: 'revoked-key' });
      await autoDisable(id);
      // The console loads the channel and sends the whole object back, status 3 included, with a new key.
      const loaded = await getChannel(id);
      expect(loaded.status).toBe(3);
      const saved = await call(target, admin, 'put', '/api/channel/', { ...loaded, key: 'fresh-key' });
      expect(saved.body).toMatchObject({ success: true });
      const after = await getChannel(id);
      expect(after.status).toBe(3);
      expect(JSON.parse(after.other_info)).toMatchObject({ status_reason: 'Incorrect API key' });
      expect(await storedChannelKeys(target, [id])).toEqual(['fresh-key']);
      expect(router().get(id)?.status).not.toBe(1);
      // Moving an enabled channel to 3 stays the automatic rules' business.
      const [other] = await create({ name: 'auto-edit-2' });
      expect((await call(target, admin, 'put', '/api/channel/', { id: other, status: 3 })).body).toEqual({
        success: false,
        message: '无效的参数',
      });
    });

    it('deletes one channel (trailing slash too), and an unknown id succeeds with nothing deleted', async () => {
      const [a, b] = await create({ name: 'del', key: 'a\nb' });
      expect((await call(target, admin, 'delete', `/api/channel/${a}`)).body).toEqual({ success: true, message: '' });
      expect((await call(target, admin, 'delete', `/api/channel/${b}/`)).body).toEqual({ success: true, message: '' });
      expect(await dataSource(target).query('SELECT id FROM channels WHERE id IN ($1, $2)', [a, b])).toEqual([]);
      expect(await abilities(a)).toEqual([]);
      expect(router().get(a)).toBeNull();
      expect((await call(target, admin, 'delete', '/api/channel/999999')).body).toEqual({ success: true, message: '' });
      expect((await call(target, admin, 'delete', '/api/channel/abc')).body).toEqual({ success: false, message: '无效的参数' });
    });

    it('deletes every manually or automatically disabled channel and answers the count', async () => {
      const [on, manual, auto] = await create({ name: 'disabled-set', key: 'x\ny\nz' });
      await call(target, admin, 'put', '/api/channel/', { id: manual, status: 2 });
      await autoDisable(auto);
      const autoView = await getChannel(auto);
      expect(autoView.status).toBe(3);
      expect(JSON.parse(autoView.other_info)).toEqual({ status_reason: 'Incorrect API key', status_time: expect.any(Number) });
      const disabledBefore = await dataSource(target).query(
        'SELECT count(*)::int AS n FROM channel_status WHERE status IN (2, 3) AND channel_id IN (SELECT id FROM channels)',
      );
      const response = await call(target, admin, 'delete', '/api/channel/disabled');
      expect(response.body).toEqual({ success: true, message: '', data: disabledBefore[0].n });
      expect(response.body.data).toBeGreaterThanOrEqual(2);
      const left = await dataSource(target).query('SELECT id FROM channels WHERE id = ANY($1::int[])', [[on, manual, auto]]);
      expect(left).toEqual([{ id: on }]);
    });

    it('batch-deletes the selected channels, answering the count, and needs a selection', async () => {
      const ids = await create({ name: 'batch-del', key: 'p\nq\nr\ns\nt\nu' });
      const response = await call(target, admin, 'post', '/api/channel/batch', { ids: [ids[0], ids[1], ids[1], 999999] });
      expect(response.body).toEqual({ success: true, message: '', data: 2 });
      expect(await dataSource(target).query('SELECT id FROM channels WHERE id = ANY($1::int[]) ORDER BY id', [ids])).toEqual(
        ids.slice(2).map((id) => ({ id })),
      );
      // Any count, not only two (the handler once answered the length of TypeORM's [rows, count] pair, always 2).
      expect((await call(target, admin, 'post', '/api/channel/batch', { ids: ids.slice(3) })).body).toEqual({
        success: true,
        message: '',
        data: 3,
      });
      expect(await dataSource(target).query('SELECT id FROM channels WHERE id = ANY($1::int[])', [ids])).toEqual([{ id: ids[2] }]);
      const before = await tablesSnapshot(target);
      expect((await call(target, admin, 'post', '/api/channel/batch', { ids: [] })).body).toEqual({
        success: false,
        message: '请先选择要删除的通道！',
      });
      expect((await call(target, admin, 'post', '/api/channel/batch', {})).body).toEqual({
        success: false,
        message: '请先选择要删除的通道！',
      });
      expect((await call(target, admin, 'post', '/api/channel/batch', { ids: ['1'] })).body).toEqual({
        success: false,
        message: '无效的参数',
      });
      expect(changedRows(before, await tablesSnapshot(target))).toEqual({});
    });

    it('fix rebuilds the routing rows of channels whose rows are missing or stale and answers how many', async () => {
      const [broken, stale] = await create({ name: 'fixme', key: 'f1\nf2', models: 'fix-a,fix-b' });
      expect((await call(target, admin, 'post', '/api/channel/fix')).body).toEqual({ success: true, message: '', data: 0 });
      const expected = await abilities(broken);
      await dataSource(target).query('DELETE FROM abilities WHERE channel_id = $1', [broken]);
      await dataSource(target).query('UPDATE abilities SET enabled = false WHERE channel_id = $1', [stale]);
      expect((await call(target, admin, 'post', '/api/channel/fix')).body).toEqual({ success: true, message: '', data: 2 });
      expect(await abilities(broken)).toEqual(expected);
      expect((await abilities(stale)).every((row: { enabled: boolean }) => row.enabled)).toBe(true);
    });
  });

  describe('channel status projection', () => {
    it('folds tests, balances, automatic decisions and relay charges; a rebuild equals the live table', async () => {
      const [id, other] = await create({ name: 'projected', key: 'u\nv', models: 'proj-model' });
      const bus = target.app.get(CommandBus);
      const base = { correlationId: 'c', actor: systemActor(), clientIp: null };
      await bus.execute(
        new ChangeChannelStatusCommand({
          ...base,
          channelId: id,
          command: { type: 'RecordChannelTest', ok: true, responseTimeMs: 1234, model: 'proj-model', error: null },
          reasonCode: 'channel_test',
        }),
      );
      await bus.execute(
        new ChangeChannelStatusCommand({
          ...base,
          channelId: id,
          command: { type: 'RecordChannelBalance', balance: 17.25 },
          reasonCode: 'balance_refresh',
        }),
      );
      await bus.execute(
        new ChangeChannelStatusCommand({
          ...base,
          channelId: other,
          command: { type: 'AutoDisableChannel', reasonCode: 'upstream_unauthorized', message: 'bad key', evidence: { status: 401 } },
          reasonCode: 'upstream_unauthorized',
        }),
      );
      expect(router().select('default', 'proj-model')?.id).toBe(id);
      await bus.execute(
        new ChangeChannelStatusCommand({
          ...base,
          channelId: other,
          command: { type: 'AutoEnableChannel', reasonCode: 'test_passed', message: '', evidence: {} },
          reasonCode: 'test_passed',
        }),
      );
      for (const [i, channelId, quota] of [
        [1, id, 300],
        [2, id, 25],
        [3, other, 7],
      ] as const) {
        await eventStore(target).appendToStream(
          accountStream(common.id),
          [
            newEvent(
              'QuotaConsumed',
              {
                requestId: `r-${i}`,
                userId: common.id,
                tokenId: 0,
                channelId,
                quota,
                tokenUnlimited: true,
                username: 'chuser',
                quotaDisplay: { inCurrency: true, quotaPerUnit: 500000 },
              },
              {
                id: deterministicEventId('relay-request', `channels-spec-${i}`),
                metadata: { correlationId: `r-${i}`, actor: systemActor(), reasonCode: 'relay' },
              },
            ),
          ],
          { expectedRevision: 'any' },
        );
      }
      await projected(target);
      expect(await getChannel(id)).toMatchObject({ status: 1, response_time: 1234, balance: 17.25, used_quota: 325 });
      expect((await getChannel(id)).test_time).toBeGreaterThan(0);
      const otherView = await getChannel(other);
      expect(otherView).toMatchObject({ status: 1, used_quota: 7 });
      expect(JSON.parse(otherView.other_info).status_reason).toBe('');
      const live = await snapshotTables(dataSource(target), ['channel_status']);
      await target.app.get(ProjectionRunner).rebuild({ projections: ['channel-status'] });
      const comparison = await compareTables(live, dataSource(target), ['channel_status']);
      expect(comparison.summary).toMatch(/^equal/);
      expect(root.id).toBeGreaterThan(0);
    });
  });

  describe('ChannelOutcomeReporter', () => {
    it('queues each outcome on channel-outcomes without waiting, and never throws when Redis refuses', async () => {
      const [id] = await create({ name: 'reported' });
      const queue = target.app.get<Queue>(getQueueToken(CHANNEL_OUTCOMES_QUEUE));
      const reporter = target.app.get(ChannelOutcomeReporter);
      const seen = async () => {
        const counts = await queue.getJobCounts('completed', 'waiting', 'active', 'failed', 'delayed');
        return Object.values(counts).reduce((sum, count) => sum + count, 0);
      };
      const before = await seen();
      expect(reporter.report({ channelId: id, ok: true, status: 200, errorCode: null, message: '', source: 'relay' })).toBeUndefined();
      const deadline = Date.now() + 5000;
      while ((await seen()) === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await seen()).toBe(before + 1);
      const add = jest.spyOn(queue, 'add').mockRejectedValueOnce(new Error('redis down'));
      expect(() =>
        reporter.report({ channelId: id, ok: false, status: 500, errorCode: null, message: 'x', source: 'relay' }),
      ).not.toThrow();
      expect(add).toHaveBeenCalledTimes(1);
      add.mockRestore();
    });
  });
});
