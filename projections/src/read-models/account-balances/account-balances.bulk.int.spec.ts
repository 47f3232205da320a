import { describeBulkEquivalence } from '../../../test/bulk-equivalence';
import { refundsAndCredits } from '../../../test/bulk-cases';
import { AccountBalancesProjection } from './account-balances.projection';

// apply() and bulkFold() use neither the admission service nor the data source (afterCommit does).
const projection = new AccountBalancesProjection(null as never, null as never);

describeBulkEquivalence(projection, ['account_balances'], (context) => {
  it('given refunds, top-ups, codes and admin edits between charges, then the bulk rows equal apply and the figures worked out by hand', async () => {
    await context.expectSameRows(refundsAndCredits());
    const rows: Array<Record<string, string>> = await context.bulk.query(
      'SELECT user_id, quota, used_quota, request_count, aff_count, aff_quota, aff_history_quota, revision FROM account_balances ORDER BY user_id',
    );
    // user 1: 3000 − 700 + 300 − 1900 + 900 + 250 + 120 (reward moved) − 1400, set to 20, − 30; used 700 − 300 + 1900
    //   − 900 + 1400 + 30. user 2: 1200 − 1150 + 150 + 40 + 5000 − 4000, set to 9000, − 8500 + 8500 (refund).
    expect(rows.map((row) => Object.values(row).map(Number))).toEqual([
      [1, -10, 2830, 4, 1, 0, 120, 10],
      [2, 9000, 4960, 3, 0, 0, 0, 8],
    ]);
  });
});
