import { getQueueToken } from '@nestjs/bullmq';
import { CommandBus } from '@nestjs/cqrs';
import type { Queue } from 'bullmq';
import { rebuildProjectionsIn } from '#server/cli/rebuild-projections';
import { deterministicEventId } from '#server/ledger/event-ids';
import { logPartitions } from '#projections/read-models/logs/log-partitions';
import {
  LOG_RETENTION_EVERY_MS,
  LOG_RETENTION_JOB,
  LOG_RETENTION_QUEUE,
  LOG_RETENTION_SCHEDULER,
} from '#server/modules/logs/retention/log-retention.queue';
import {
  ApplyLogRetentionCommand,
  type LogRetentionOutcome,
} from '#server/modules/logs/usecases/apply-log-retention/apply-log-retention.command';
import { retentionCutoff } from '#server/modules/logs/usecases/apply-log-retention/apply-log-retention.handler';
import { OptionsService } from '#server/modules/options/index';
import type { TestApp } from '../support/app';
import { compareTables, snapshotTables } from '../support/compare-tables';
import { type Charge, logsApiFixture } from './logs-api-support';
import { type Caller, call, dataSource, projected } from './users-support';

jest.setTimeout(60_000);

const DAY = 86_400;

/**
 * LogRetentionDays (issue 20 §5): the option's validation, the worker's daily job and the run after an option
 * change, the purge as a LogsRetentionApplied ledger event (system actor, cut-off, setting), whole months dropped and
 * the boundary month cut, the log API's answers after it, and a rebuild that replays the purge equal to live.
 */
describe('log retention: LogRetentionDays, the retention job and its ledger event', () => {
  const fixture = logsApiFixture();
  const { now, settle } = fixture;
  let target: TestApp;
  let root: Caller;
  const cutoff = retentionCutoff(now, 30);
  /** Charges older than 30 days: one ~100 days back (a month of its own), one just before the cut-off. */
  let old: Charge[];
  let recent: Charge;

  const retentionEvents = async (): Promise<
    Array<{ event_id: string; data: Record<string, unknown>; metadata: Record<string, unknown> }>
  > => dataSource(target).query("SELECT event_id, data, metadata FROM events WHERE type = 'LogsRetentionApplied' ORDER BY position");
  const eventCount = async () => Number((await dataSource(target).query('SELECT count(*) AS n FROM events'))[0].n);
  const logIds = async () =>
    (await dataSource(target).query('SELECT id FROM logs ORDER BY id')).map((row: { id: string }) => Number(row.id));
  /** What the log routes answer (admin lists, a user's own list, the stats' quota). */
  const answers = async () => {
    const out: unknown[] = [];
    for (const [caller, path] of [
      [root, '/api/log/?p=1&page_size=100'],
      [root, '/api/log/stat'],
      [root, `/api/log/?type=2&start_timestamp=${cutoff - 20 * DAY}&page_size=100`],
      [fixture.context.alice, '/api/log/self/?page_size=100'],
      [fixture.context.alice, '/api/log/self/stat'],
    ] as const) {
      const response = await call(target, caller, 'get', path).expect(200);
      // A stat's rpm and tpm count the minute before the call (the wall clock), so only its quota is compared.
      out.push(path.includes('stat') ? { success: response.body.success, quota: response.body.data.quota } : response.body);
    }
    return out;
  };

  beforeAll(async () => {
    ({ target, root } = fixture.context);
    const { alice, bob } = fixture.context;
    const base = { tokenId: 11, tokenName: 'a-key', model: 'gpt-4o-mini', channelPath: [1], group: 'default', prompt: 1, completion: 1 };
    old = [
      { ...base, requestId: 'old-100d', user: alice, quota: 7, at: now - 100 * DAY },
      { ...base, requestId: 'old-cutoff', user: bob, quota: 8, at: cutoff - 60 },
    ];
    recent = { ...base, requestId: 'recent', user: alice, quota: 9, at: cutoff + 60 };
    for (const charge of [...old, recent]) await settle(charge);
    await projected(target);
  });

  it('schedules the daily job in Redis (worker role)', async () => {
    const queue = target.app.get<Queue>(getQueueToken(LOG_RETENTION_QUEUE), { strict: false });
    const scheduler = await queue.getJobScheduler(LOG_RETENTION_SCHEDULER);
    expect(scheduler).toMatchObject({ name: LOG_RETENTION_JOB, every: LOG_RETENTION_EVERY_MS });
  });

  it('keeps everything by default (0): a run appends nothing', async () => {
    expect(target.app.get(OptionsService).get('LogRetentionDays')).toBe('0');
    const ids = await logIds();
    const outcome: LogRetentionOutcome = await target.app.get(CommandBus).execute(new ApplyLogRetentionCommand(now));
    expect(outcome).toEqual({ retentionDays: 0, before: null, appended: false, deleted: 0 });
    expect(await logIds()).toEqual(ids);
    expect(await retentionEvents()).toEqual([]);
  });

  it('refuses a value that is not an integer ≥ 0 with the options API message, and changes nothing', async () => {
    const ids = await logIds();
    const events = await eventCount();
    for (const value of ['-1', '1.5', 'month', '']) {
      const response = await call(target, root, 'put', '/api/option/', { key: 'LogRetentionDays', value }).expect(200);
      expect(response.body).toEqual({ success: false, message: 'LogRetentionDays 必须是不小于 0 的整数' });
    }
    const stored = await dataSource(target).query("SELECT value FROM options WHERE key = 'LogRetentionDays'");
    expect(stored).toEqual([]);
    expect(target.app.get(OptionsService).get('LogRetentionDays')).toBe('0');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await eventCount()).toBe(events);
    expect(await logIds()).toEqual(ids);
  });

  it('runs right after the option is saved: a LogsRetentionApplied by the system, older rows gone, the rest answered as before', async () => {
    const idsBefore = await logIds();
    const response = await call(target, root, 'put', '/api/option/', { key: 'LogRetentionDays', value: '30' }).expect(200);
    expect(response.body.success).toBe(true);
    let events = await retentionEvents();
    for (let waited = 0; events.length === 0 && waited < 15_000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      events = await retentionEvents();
    }
    expect(events).toHaveLength(1);
    expect(events[0].data).toEqual({ before: cutoff, retentionDays: 30 });
    expect(events[0].metadata).toMatchObject({ actor: { type: 'system' }, reasonCode: 'log_retention' });
    expect(events[0].event_id).toBe(deterministicEventId('logs-retention', String(cutoff)));
    await projected(target);
    // The worker's job queued by the option change did it (not the daily schedule).
    const queue = target.app.get<Queue>(getQueueToken(LOG_RETENTION_QUEUE), { strict: false });
    let jobs = await queue.getCompleted();
    for (let waited = 0; !jobs.some((job) => job.data.trigger === 'option') && waited < 5000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      jobs = await queue.getCompleted();
    }
    expect(jobs.find((job) => job.data.trigger === 'option')?.returnvalue).toEqual({
      retentionDays: 30,
      before: cutoff,
      appended: true,
      deleted: old.length,
    });

    const kept: Array<{ id: string; created_at: string }> = await dataSource(target).query('SELECT id, created_at FROM logs ORDER BY id');
    expect(kept.every((row) => Number(row.created_at) >= cutoff)).toBe(true);
    expect(kept.length).toBe(idsBefore.length - old.length);
    const [purge]: Array<{ deleted: string; admin_id: number; target_timestamp: string }> = await dataSource(target).query(
      'SELECT deleted, admin_id, target_timestamp FROM log_purges',
    );
    expect([Number(purge.deleted), purge.admin_id, Number(purge.target_timestamp)]).toEqual([old.length, 0, cutoff]);
    // The month of the 100-day-old charge lay wholly before the cut-off: its partition is gone, not emptied.
    const monthOfOld = new Date((now - 100 * DAY) * 1000);
    const name = `logs_p${monthOfOld.getUTCFullYear()}${String(monthOfOld.getUTCMonth() + 1).padStart(2, '0')}`;
    expect((await logPartitions(dataSource(target).manager)).map((partition) => partition.name)).not.toContain(name);

    const page = (await call(target, root, 'get', '/api/log/?page_size=100').expect(200)).body.data;
    expect(page.total).toBe(kept.length);
    expect(page.items.map((item: { quota: number }) => item.quota)).not.toEqual(expect.arrayContaining([7]));
    expect(page.items.map((item: { quota: number }) => item.quota)).not.toEqual(expect.arrayContaining([8]));
    expect(page.items.map((item: { quota: number }) => item.quota)).toEqual(expect.arrayContaining([recent.quota]));
  });

  it('appends nothing more on the same day: nothing older is left', async () => {
    const events = await eventCount();
    const outcome: LogRetentionOutcome = await target.app.get(CommandBus).execute(new ApplyLogRetentionCommand(now));
    expect(outcome).toEqual({ retentionDays: 30, before: cutoff, appended: false, deleted: 0 });
    expect(await eventCount()).toBe(events);
  });

  it('rebuilds equal to live: the purge is replayed, and every log route answers the same', async () => {
    const db = dataSource(target);
    const live = await snapshotTables(db, ['logs', 'log_purges']);
    const liveAnswers = await answers();
    await rebuildProjectionsIn(target.app, { waitSeconds: 30 }, () => undefined);
    await projected(target);
    expect((await compareTables(live, db, ['logs', 'log_purges'])).summary).toMatch(/^equal/);
    expect(await answers()).toEqual(liveAnswers);
    // The rebuild dropped the log indexes for its replay and created them again: valid, on every month's partition.
    const indexes: Array<{ name: string; valid: boolean; partitions: number }> = await db.query(
      `SELECT i.relname AS name, x.indisvalid AS valid,
              (SELECT count(*)::int FROM pg_inherits h WHERE h.inhparent = i.oid) AS partitions
         FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
        WHERE t.relname = 'logs' ORDER BY i.relname`,
    );
    const [{ months }] = await db.query(
      `SELECT count(*)::int AS months FROM pg_inherits h JOIN pg_class t ON t.oid = h.inhparent WHERE t.relname = 'logs'`,
    );
    expect(indexes.map((index) => index.name)).toEqual(
      expect.arrayContaining([
        'logs_channel_id_idx',
        'logs_created_at_idx',
        'logs_model_name_idx',
        'logs_pkey',
        'logs_token_id_idx',
        'logs_user_id_idx',
        'logs_username_idx',
      ]),
    );
    for (const index of indexes) expect(index).toEqual({ name: index.name, valid: true, partitions: months });
    expect(await db.query('SELECT * FROM projection_deferred_indexes')).toEqual([]);
  });
});
