import { describeBatchEquivalence, handledBy } from '../../../test/batch-equivalence';
import { handWrittenLedger, LedgerBuilder, random, randomEvents } from '../../../test/mixed-ledger';
import { StatementProjection } from './statement.projection';

const projection = new StatementProjection();

describeBatchEquivalence(projection, ['statement_lines'], (context) => {
  async function lines(): Promise<Array<{ user_id: number; position: number; delta: number; balance: number }>> {
    const rows: Array<Record<string, string>> = await context.batched.query(
      'SELECT user_id, position, delta, balance FROM statement_lines ORDER BY user_id, position',
    );
    return rows.map((row) => ({
      user_id: Number(row.user_id),
      position: Number(row.position),
      delta: Number(row.delta),
      balance: Number(row.balance),
    }));
  }

  it('folds the hand-written batch as worked out by hand: one line per event, replays skipped, the same balances as account-balances', async () => {
    const { prefix, batch } = handWrittenLedger();
    await context.batched.transaction(async (manager) => {
      await projection.applyBatch(handledBy(projection, prefix), manager);
      await projection.applyBatch(handledBy(projection, batch), manager);
    });
    const rows = await lines();
    const byUser = (userId: number) => rows.filter((row) => row.user_id === userId).map((row) => [row.delta, row.balance]);
    // The account-balances spec works out the same ledger: user 1 ends at 5025, user 2 at 455, 3 at −63, 4 at −126.
    expect(byUser(1)).toEqual([
      [5000, 5000],
      [-10, 4990],
      [-11, 4979],
      [100, 5079],
      [-12, 5067],
      [-13, 5054],
      [-14, 5040],
      [-15, 5025],
    ]);
    expect(byUser(2)).toEqual([
      [9000, 9000],
      [-20, 8980],
      [-21, 8959],
      [-8459, 500],
      [-22, 478],
      [-23, 455],
    ]);
    expect(byUser(3)).toEqual([
      [-31, -31],
      [-32, -63],
    ]);
    expect(byUser(4)).toEqual([
      [-41, -41],
      [-42, -83],
      [-43, -126],
    ]);
  });

  it('keeps the chain and the sum for every user of a random ledger folded in batches', async () => {
    const builder = new LedgerBuilder('chain');
    const events = randomEvents(builder, random(7), 600);
    const rand = random(8);
    for (let start = 0; start < events.length; ) {
      const chunk = events.slice(start, (start += 1 + Math.floor(rand() * 60)));
      await context.batched.transaction((manager) => projection.applyBatch(handledBy(projection, chunk), manager));
    }
    const rows = await lines();
    expect(rows.length).toBeGreaterThan(300);
    for (const userId of new Set(rows.map((row) => row.user_id))) {
      const own = rows.filter((row) => row.user_id === userId);
      own.forEach((row, index) => expect(row.balance - row.delta).toBe(index === 0 ? 0 : own[index - 1].balance));
      expect(own.reduce((sum, row) => sum + row.delta, 0)).toBe(own.at(-1)!.balance);
    }
  });
});
