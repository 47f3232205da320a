import { describeBatchEquivalence, handledBy } from '../../../test/batch-equivalence';
import { handWrittenLedger } from '../../../test/mixed-ledger';
import { AccountBalancesProjection } from './account-balances.projection';

// apply() and applyBatch() use neither the admission service nor the data source (afterCommit does).
const projection = new AccountBalancesProjection(null as never, null as never);

describeBatchEquivalence(projection, ['account_balances'], (context) => {
  it('folds the hand-written batch as worked out by hand: replays counted once, grants and admin edits in their place', async () => {
    const { prefix, batch } = handWrittenLedger();
    await context.batched.query('TRUNCATE account_balances');
    await context.batched.transaction(async (manager) => {
      await projection.applyBatch(handledBy(projection, prefix), manager);
      await projection.applyBatch(handledBy(projection, batch), manager);
    });
    const rows: Array<Record<string, string>> = await context.batched.query(
      'SELECT user_id, quota, used_quota, request_count, revision FROM account_balances ORDER BY user_id',
    );
    // user 1: 5000 − 10 | −11, +100 (gift), −12, −13, −14, −15; the replayed charge (revision 1) and grant (0) skipped.
    // user 2: 9000 − 20 − 21, set to 500 by the admin, − 22 − 23. users 3 and 4: charges only, 42 handed over twice.
    expect(rows.map((row) => Object.values(row).map(Number))).toEqual([
      [1, 5025, 75, 6, 7],
      [2, 455, 86, 4, 5],
      [3, -63, 63, 2, 1],
      [4, -126, 126, 3, 2],
    ]);
  });
});
