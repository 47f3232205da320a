import { describeBatchEquivalence, handledBy } from '../../../test/batch-equivalence';
import { handWrittenLedger, LedgerBuilder } from '../../../test/mixed-ledger';
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
    const at = { createdAt: 1_732_600_900, modelName: 'gpt-4o', username: 'acc' };
    const first = builder.charge(9, { ...at, quota: 10, promptTokens: 3, completionTokens: 4 });
    const second = builder.charge(9, { ...at, quota: 20, promptTokens: 5, completionTokens: 6 });
    const third = builder.charge(9, { ...at, quota: 30, promptTokens: 7, completionTokens: 8 });
    await context.batched.transaction((manager) => projection.applyBatch([first], manager));
    await context.batched.transaction((manager) => projection.applyBatch([second, first, third, second], manager));
    const rows = await context.batched.query(
      'SELECT id::int, user_id, username, model_name, created_at::int, count, quota::int, token_used::int FROM quota_data',
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
      },
    ]);
  });
});
