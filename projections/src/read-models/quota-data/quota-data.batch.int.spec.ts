import { describeBatchEquivalence, handledBy } from '../../../test/batch-equivalence';
import { handWrittenLedger, LedgerBuilder } from '../../../test/mixed-ledger';
import { IN_ONE_ROW, rowOfThreeCharges, THREE_CHARGES } from '../../../test/quota-data-row';
import { QuotaDataProjection } from './quota-data.projection';

const projection = new QuotaDataProjection();

describeBatchEquivalence(projection, ['quota_data'], (context) => {
  it('folds the hand-written batch into one row per user, name, model and hour, token_used included', async () => {
    const { prefix, batch } = handWrittenLedger();
    await context.batched.transaction(async (manager) => {
      await projection.applyBatch(handledBy(projection, prefix), manager);
      await projection.applyBatch(handledBy(projection, batch), manager);
    });
    const rows: Array<Record<string, string>> = await context.batched.query('SELECT count, quota, token_used FROM quota_data');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => Number(row.token_used) >= 0 && Number(row.count) >= 1)).toBe(true);
  });

  it('adds count, quota and token_used to an existing row in a later batch, and skips a charge handed over twice', async () => {
    const builder = new LedgerBuilder('accumulate');
    const [first, second, third] = THREE_CHARGES.map((charge) => builder.charge(9, { ...IN_ONE_ROW, ...charge }));
    await context.batched.transaction((manager) => projection.applyBatch([first], manager));
    await context.batched.transaction((manager) => projection.applyBatch([second, first, third, second], manager));
    const rows = await context.batched.query(
      'SELECT id::int, user_id, username, model_name, created_at::int, count, quota::int, token_used::int FROM quota_data',
    );
    expect(rows).toEqual([rowOfThreeCharges(first)]);
  });
});
