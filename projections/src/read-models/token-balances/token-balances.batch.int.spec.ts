import { describeBatchEquivalence, handledBy } from '../../../test/batch-equivalence';
import { refundsAndCredits } from '../../../test/bulk-cases';
import { handWrittenLedger } from '../../../test/mixed-ledger';
import { TokenBalancesProjection } from './token-balances.projection';

// apply() and applyBatch() use neither the admission service nor the data source (afterCommit does).
const projection = new TokenBalancesProjection(null as never, null as never);

describeBatchEquivalence(projection, ['token_balances'], (context) => {
  it('folds the hand-written batch as worked out by hand: unlimited charges leave remain_quota, an allotment resets it', async () => {
    const { prefix, batch } = handWrittenLedger();
    await context.batched.query('TRUNCATE token_balances');
    await context.batched.transaction(async (manager) => {
      await projection.applyBatch(handledBy(projection, prefix), manager);
      await projection.applyBatch(handledBy(projection, batch), manager);
    });
    const rows: Array<Record<string, string>> = await context.batched.query(
      'SELECT token_id, user_id, remain_quota, used_quota FROM token_balances ORDER BY token_id',
    );
    // 101: allotted 1000, −10 −11, unlimited 12 (used only), re-allotted 5000, −14 −15. 102: unlimited 20, then
    // −21 −22 −23. 103 and 104 from charges alone (42 handed over twice). 201: one charge. User 3's charge of 31
    // had no token.
    expect(rows.map((row) => Object.values(row).map(Number))).toEqual([
      [101, 1, 4971, 62],
      [102, 2, -66, 86],
      [103, 3, -32, 32],
      [104, 4, -126, 126],
      [201, 1, -13, 13],
    ]);
  });

  it('given a refund of a charge made without a token (tokenId 0), then neither apply nor applyBatch writes a row for token 0', async () => {
    const events = handledBy(projection, refundsAndCredits());
    expect(events.some((event) => event.type === 'QuotaRefunded' && (event.data as { tokenId: number }).tokenId === 0)).toBe(true);
    await context.perEvent.transaction(async (manager) => {
      for (const event of events) await projection.apply(event, manager);
    });
    await context.batched.transaction((manager) => projection.applyBatch(events, manager));
    for (const dataSource of [context.perEvent, context.batched]) {
      const rows: Array<{ token_id: number }> = await dataSource.query('SELECT token_id FROM token_balances ORDER BY token_id');
      expect(rows.map((row) => row.token_id)).toEqual([101, 102, 555]);
    }
  });
});
