import { asReplayed, describeBulkEquivalence, generatedEvents } from '../../../test/bulk-equivalence';
import { handWrittenLedger, LedgerBuilder } from '../../../test/mixed-ledger';
import { BulkLoad } from '../../runner/bulk-load';
import { logPartitions } from './log-partitions';
import { LogsProjection } from './logs.projection';

const projection = new LogsProjection();

describeBulkEquivalence(projection, ['logs', 'log_purges'], (context) => {
  it('writes each row into its month partition (none in the default one), the months a purge dropped created again when rows need them', async () => {
    const { prefix, batch } = handWrittenLedger();
    const generated = generatedEvents(600, 11); // October 2026
    const builder = new LedgerBuilder('months');
    const november = Date.UTC(2026, 10, 1) / 1000;
    // The purge drops October whole; the late charge of October 5th needs its partition again.
    const tail = [builder.purge(november), builder.charge(1, { quota: 7, createdAt: november - 26 * 86_400 })];
    const events = [...asReplayed([...prefix, ...batch]), ...generated, ...tail].map((event, index) => ({ ...event, position: index + 1 }));
    const load = await BulkLoad.start(context.bulk, projection, 0);
    try {
      await load.feed(events);
    } catch (error) {
      await load.abort();
      throw error;
    }
    await load.finish(events.length);
    const [{ count }]: Array<{ count: string }> = await context.bulk.query('SELECT count(*) AS count FROM logs_default');
    expect(Number(count)).toBe(0);
    const months = await context.bulk.query(
      `SELECT tableoid::regclass::text AS partition, min(created_at) AS first, max(created_at) AS last FROM logs GROUP BY 1`,
    );
    expect(months.length).toBeGreaterThan(0);
    const partitions = new Map((await logPartitions(context.bulk.manager)).map((partition) => [partition.name, partition]));
    for (const month of months as Array<{ partition: string; first: string; last: string }>) {
      const partition = partitions.get(month.partition)!;
      expect(Number(month.first)).toBeGreaterThanOrEqual(partition.from!);
      expect(Number(month.last)).toBeLessThan(partition.to!);
    }
    const purges: Array<{ deleted: string }> = await context.bulk.query('SELECT deleted FROM log_purges ORDER BY position');
    expect(purges.length).toBeGreaterThanOrEqual(2); // the hand-written ledger's, the generator's, and October's
    expect(Number(purges[purges.length - 1].deleted)).toBeGreaterThan(500);
    const late: Array<{ partition: string }> = await context.bulk.query(
      'SELECT tableoid::regclass::text AS partition FROM logs WHERE id = $1',
      [events.length],
    );
    expect(late).toEqual([{ partition: 'logs_p202610' }]);
    expect(await context.bulk.query('SELECT count(*)::int AS count FROM logs WHERE created_at < $1', [november])).toEqual([{ count: 1 }]);
  });
});
