import { asReplayed, describeBulkEquivalence } from '../../../test/bulk-equivalence';
import { handWrittenLedger, LedgerBuilder } from '../../../test/mixed-ledger';
import { IN_ONE_ROW, rowOfThreeCharges, THREE_CHARGES } from '../../../test/quota-data-row';
import { BulkLoad } from '../../runner/bulk-load';
import { QuotaDataBulkFold, QUOTA_DATA_HOURS_HELD } from './quota-data-bulk-fold';
import { QuotaDataProjection } from './quota-data.projection';

const projection = new QuotaDataProjection();
const HOUR = 3600;
/** The ledger's clock of `event` moved to `seconds` (the builder spaces events a second apart). */
const at = <E extends { createdAt: Date }>(event: E, seconds: number): E => {
  event.createdAt = new Date(seconds * 1000);
  return event;
};

describeBulkEquivalence(projection, ['quota_data'], (context) => {
  it('given three charges of one row among others, then the row counts them all, its id the first position and its position the last', async () => {
    const builder = new LedgerBuilder('accumulate');
    const first = builder.charge(9, { ...IN_ONE_ROW, ...THREE_CHARGES[0] });
    const other = builder.charge(9, { ...IN_ONE_ROW, createdAt: 1_732_604_400, quota: 1 });
    const second = builder.charge(9, { ...IN_ONE_ROW, ...THREE_CHARGES[1], createdAt: 1_732_604_399 });
    const skipped = builder.charge(9, { ...IN_ONE_ROW, quota: 99, dataExport: false });
    const third = builder.charge(9, { ...IN_ONE_ROW, ...THREE_CHARGES[2] });
    await context.expectSameRows([first, other, second, skipped, third]);
    const rows = await context.bulk.query(
      `SELECT id::int, user_id, username, model_name, created_at::int, count, quota::int, token_used::int, position::int
         FROM quota_data WHERE created_at = 1732600800`,
    );
    expect(rows).toEqual([{ ...rowOfThreeCharges(first), position: third.position }]);
  });

  it('given the hand-written ledger, then the rows count every charge the dashboard counts, once', async () => {
    const { prefix, batch } = handWrittenLedger();
    const events = asReplayed([...prefix, ...batch]);
    const load = await BulkLoad.start(context.bulk, projection, 0);
    await load.feed(events);
    await load.finish(events[events.length - 1].position);
    const [{ count, quota }]: Array<{ count: string; quota: string }> = await context.bulk.query(
      'SELECT sum(count) AS count, sum(quota) AS quota FROM quota_data',
    );
    // 15 distinct charges (350 quota) but the one settled with logConsume false (21).
    expect([Number(count), Number(quota)]).toEqual([14, 329]);
  });
  it('given charges that reach the ledger hours after their hour was written, then each is added to its row or makes one, as apply does', async () => {
    const builder = new LedgerBuilder('late');
    const start = IN_ONE_ROW.createdAt; // admitted in the hour starting 1_732_600_800
    const events = [
      at(builder.charge(9, { ...IN_ONE_ROW, ...THREE_CHARGES[0] }), start + 60),
      at(builder.charge(9, { ...IN_ONE_ROW, ...THREE_CHARGES[1] }), start + 120),
      // The ledger's clock moves on by days: the first hour is written long before the late charges below.
      ...Array.from({ length: 12 }, (_, i) => at(builder.charge(4, { createdAt: start + (i + 1) * 5 * HOUR }), start + (i + 1) * 5 * HOUR)),
      // A request admitted in the first hour that ended three days later: same key, so its row grows.
      at(builder.charge(9, { ...IN_ONE_ROW, ...THREE_CHARGES[2] }), start + 72 * HOUR),
      // Another, of a model with no row in that hour yet: a row of its own, its id this charge's position.
      at(builder.charge(9, { ...IN_ONE_ROW, modelName: 'o3', quota: 5 }), start + 72 * HOUR + 1),
      at(builder.charge(9, { ...IN_ONE_ROW, modelName: 'o3', quota: 6 }), start + 72 * HOUR + 2),
      // One that the dashboard does not count.
      at(builder.charge(9, { ...IN_ONE_ROW, quota: 99, logConsume: false }), start + 72 * HOUR + 3),
    ];
    await context.expectSameRows(events, 2);
    const rows = await context.bulk.query(
      'SELECT id::int, model_name, count, quota::int, position::int FROM quota_data WHERE created_at = 1732600800 ORDER BY id',
    );
    expect(rows).toEqual([
      { id: events[0].position, model_name: 'gpt-4o', count: 3, quota: 60, position: events[14].position },
      { id: events[15].position, model_name: 'o3', count: 2, quota: 11, position: events[16].position },
    ]);
  });

  it('writes the rows of an hour once the ledger is past it, so the fold holds a few hours, not the history', () => {
    const builder = new LedgerBuilder('held');
    const fold = new QuotaDataBulkFold(() => Promise.resolve());
    const hours = 48;
    let written = 0;
    let heldAtMost = 0;
    for (let hour = 0; hour < hours; hour++) {
      for (let user = 1; user <= 20; user++) {
        const seconds = IN_ONE_ROW.createdAt + hour * HOUR;
        fold.add(at(builder.charge(user, { createdAt: seconds }), seconds + 30));
      }
      const drained = fold.drain().reduce((sum, rows) => sum + rows.rows.length, 0);
      written += drained;
      heldAtMost = Math.max(heldAtMost, (hour + 1) * 20 - written);
    }
    // Rows of the current hour and the QUOTA_DATA_HOURS_HELD before it.
    expect(heldAtMost).toBe((QUOTA_DATA_HOURS_HELD + 1) * 20);
    expect(written + fold.finish()[0].rows.length).toBe(hours * 20);
    expect(fold.finishBarrier()).toBeNull();
  });
});
