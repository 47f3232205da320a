import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Queue } from 'bullmq';
import { parseConfig } from '#server/config/app-config';
import { LedgerArchiveJob, monthToArchiveBefore } from '#server/modules/ledger-archive/ledger-archive.job';
import { LEDGER_ARCHIVE_EVERY_MS, LEDGER_ARCHIVE_JOB, LEDGER_ARCHIVE_SCHEDULER } from '#server/modules/ledger-archive/ledger-archive.queue';
import { LedgerArchiveScheduler } from '#server/modules/ledger-archive/ledger-archive.scheduler';
import { createTestApp, type TestApp } from '../support/app';
import { dataSource, eventStore, projected, register, setOptions } from './users-support';

jest.setTimeout(120_000);

describe('ledger archive as a worker job (LEDGER_ARCHIVE_KEEP_MONTHS)', () => {
  it('archives before the month N months back', () => {
    expect(monthToArchiveBefore(new Date('2026-11-25T20:00:00Z'), 3)).toBe('2026-08');
    expect(monthToArchiveBefore(new Date('2026-01-01T00:00:00Z'), 1)).toBe('2025-12');
    expect(monthToArchiveBefore(new Date('2026-03-31T23:59:59Z'), 14)).toBe('2025-01');
  });

  it('installs the daily schedule in the worker role only when N > 0, and removes it at 0', async () => {
    const calls: string[] = [];
    const queue = {
      upsertJobScheduler: (id: string, repeat: { every: number }, template: { name: string }) =>
        Promise.resolve(calls.push(`upsert ${id} every ${repeat.every} ${template.name}`)),
      removeJobScheduler: (id: string) => Promise.resolve(calls.push(`remove ${id}`)),
    } as unknown as Queue;
    const config = (keep: string, roles: Array<'api' | 'worker'>) => ({
      ...parseConfig({ LEDGER_ARCHIVE_KEEP_MONTHS: keep }),
      DATABASE_URL: 'postgres://unused',
      REDIS_URL: 'redis://unused',
      roles,
    });
    await new LedgerArchiveScheduler(config('3', ['worker']), queue).onApplicationBootstrap();
    await new LedgerArchiveScheduler(config('0', ['worker']), queue).onApplicationBootstrap();
    await new LedgerArchiveScheduler(config('3', ['api']), queue).onApplicationBootstrap();
    expect(calls).toEqual([
      `upsert ${LEDGER_ARCHIVE_SCHEDULER} every ${LEDGER_ARCHIVE_EVERY_MS} ${LEDGER_ARCHIVE_JOB}`,
      `remove ${LEDGER_ARCHIVE_SCHEDULER}`,
    ]);
    expect(() => parseConfig({ LEDGER_ARCHIVE_KEEP_MONTHS: '-1' })).toThrow(/LEDGER_ARCHIVE_KEEP_MONTHS/);
  });

  describe('against the application', () => {
    let target: TestApp;
    let dataDir: string;
    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'tollgate-archive-job-'));
      // No worker role: the test runs the job itself, so no scheduled run can overlap it.
      target = await createTestApp({ env: { DATA_DIR: dataDir, LEDGER_ARCHIVE_KEEP_MONTHS: '2' }, roles: ['api', 'projector'] });
    });
    afterAll(async () => {
      await target?.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('archives what is older than the months kept, then has nothing to do', async () => {
      const job = target.app.get(LedgerArchiveJob);
      await setOptions(target, { QuotaForNewUser: '1000' });
      for (const name of ['job-a', 'job-b', 'job-c', 'job-d']) await register(target, name);
      await projected(target);
      const head = await eventStore(target).headPosition();
      expect(head).toBeGreaterThanOrEqual(4);
      const db = dataSource(target);
      // Nothing is older than two months yet.
      expect(await job.run()).toBeNull();
      // The first events were written three months ago (the ledger refuses UPDATE: the fixture lifts its trigger).
      await db.query('ALTER TABLE events DISABLE TRIGGER events_append_only');
      await db.query(`UPDATE events SET created_at = created_at - interval '3 months' WHERE position <= $1`, [head - 2]);
      await db.query('ALTER TABLE events ENABLE TRIGGER events_append_only');

      const report = await job.run();
      expect(report).toEqual(expect.objectContaining({ archivedThrough: head - 2, eventsArchived: head - 2 }));
      expect(report!.segments.every((segment) => existsSync(join(report!.directory, segment.file)))).toBe(true);
      expect(await db.query('SELECT min(position)::int AS first FROM events')).toEqual([{ first: head - 1 }]);
      expect((await eventStore(target).readAll()).map((event) => event.position)).toEqual(Array.from({ length: head }, (_, i) => i + 1));
      expect(await job.run()).toBeNull();
    });
  });
});
