import { describeBatchEquivalence, handledBy } from '../../../test/batch-equivalence';
import { handWrittenLedger } from '../../../test/mixed-ledger';
import { ChannelStatusProjection } from './channel-status.projection';

const projection = new ChannelStatusProjection();

describeBatchEquivalence(projection, ['channel_status'], (context) => {
  it('folds the hand-written batch: every charge with a channel counted once, status events kept in between', async () => {
    const { prefix, batch } = handWrittenLedger();
    await context.batched.query('TRUNCATE channel_status');
    await context.batched.transaction(async (manager) => {
      await projection.applyBatch(handledBy(projection, prefix), manager);
      await projection.applyBatch(handledBy(projection, batch), manager);
    });
    const rows: Array<{ channel_id: number; status: number; response_time: number; used_quota: string; status_reason: string | null }> =
      await context.batched.query(
        'SELECT channel_id, status, response_time, used_quota, status_reason FROM channel_status ORDER BY channel_id',
      );
    // All distinct charges (10+20+11+21+31+12+13+22+41+14+23+32+42+43+15 = 350) but the one without a channel (22).
    expect(rows.reduce((sum, row) => sum + Number(row.used_quota), 0)).toBe(328);
    expect(rows.find((row) => row.channel_id === 1)).toMatchObject({ status: 3, status_reason: 'down' });
    expect(rows.find((row) => row.channel_id === 2)).toMatchObject({ status: 1, response_time: 120 });
  });
});
