import { describeBulkEquivalence } from '../../../test/bulk-equivalence';
import { refundsAndCredits } from '../../../test/bulk-cases';
import { BASE_TIME } from '../../../test/mixed-ledger';
import { TokenBalancesProjection } from './token-balances.projection';

// apply() and bulkFold() use neither the admission service nor the data source (afterCommit does).
const projection = new TokenBalancesProjection(null as never, null as never);

describeBulkEquivalence(projection, ['token_balances'], (context) => {
  it('given task refunds onto limited and unlimited tokens between charges, then the bulk rows equal apply and the figures worked out by hand', async () => {
    await context.expectSameRows(refundsAndCredits());
    const rows: Array<Record<string, string>> = await context.bulk.query(
      'SELECT token_id, user_id, remain_quota, used_quota, accessed_time, position FROM token_balances ORDER BY token_id',
    );
    // No row for token 0: the refund of a charge made without a token (tokenId 0) touches no token, as that charge
    // did not. 101: allotted 800, −700, refunded +300, unlimited 1900 (used only) refunded unlimited 900 (used only),
    // −1400, −30. 102: −1150, refunded +150, −4000. 555: a refund onto a token nothing else touched.
    expect(rows.map((row) => Object.values(row).map(Number))).toEqual([
      [101, 1, -1030, 2830, BASE_TIME + 17, 18],
      [102, 2, -5000, 5000, BASE_TIME + 11, 12],
      [555, 2, 40, -40, 0, 10],
    ]);
  });
});
