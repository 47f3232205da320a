import { asReplayed, describeBulkEquivalence } from '../../../test/bulk-equivalence';
import { handWrittenLedger, LedgerBuilder } from '../../../test/mixed-ledger';
import { BulkLoad } from '../../runner/bulk-load';
import { QuotaDataProjection } from './quota-data.projection';

const projection = new QuotaDataProjection();

describeBulkEquivalence(projection, ['quota_data'], (context) => {
  it('given three charges of one row among others, then the row counts them all, its id the first position and its position the last', async () => {
    const builder = new LedgerBuilder('accumulate');
    const at = { createdAt: 1_732_600_900, modelName: 'gpt-4o', username: 'acc' };
    const first = builder.charge(9, { ...at, quota: 10, promptTokens: 3, completionTokens: 4 });
    const other = builder.charge(9, { ...at, createdAt: 1_732_604_400, quota: 1 });
    const second = builder.charge(9, { ...at, createdAt: 1_732_604_399, quota: 20, promptTokens: 5, completionTokens: 6 });
    const skipped = builder.charge(9, { ...at, quota: 99, dataExport: false });
    const third = builder.charge(9, { ...at, quota: 30, promptTokens: 7, completionTokens: 8 });
    await context.expectSameRows([first, other, second, skipped, third]);
    const rows = await context.bulk.query(
      `SELECT id::int, user_id, username, model_name, created_at::int, count, quota::int, token_used::int, position::int
         FROM quota_data WHERE created_at = 1732600800`,
    );
    expect(rows).toEqual([
      {
        id: first.position,
        user_id: 9,
        username: 'acc',
        model_name: 'gpt-4o',
        created_at: 1_732_600_800,
        count: 3,
        quota: 60,
        token_used: 33,
        position: third.position,
      },
    ]);
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
});
