import { quotaConsumedData } from '#server/modules/accounts/quota-consumed-event-codec';
import { describeBatchEquivalence, handledBy } from '../../../test/batch-equivalence';
import { handWrittenLedger } from '../../../test/mixed-ledger';
import { LogsProjection } from './logs.projection';

const projection = new LogsProjection();

describeBatchEquivalence(projection, ['logs', 'log_purges'], (context) => {
  it('inserts the hand-written batch: one row per logged charge, none when logConsume was off, purged rows stay purged', async () => {
    const { prefix, batch } = handWrittenLedger();
    await context.batched.query('TRUNCATE logs, log_purges');
    await context.batched.transaction(async (manager) => {
      await projection.applyBatch(handledBy(projection, prefix), manager);
      await projection.applyBatch(handledBy(projection, batch), manager);
    });
    const rows: Array<{ id: string; type: number; token_name: string; quota: string }> = await context.batched.query(
      'SELECT id, type, token_name, quota FROM logs ORDER BY id',
    );
    const ids = rows.map((row) => Number(row.id));
    // The charge's amount as decoded: whichever shape the mixed ledger stored it in (v1's object, v2's or v3's array).
    const position = (quota: number) =>
      batch.find((event) => event.type === 'QuotaConsumed' && quotaConsumedData(event).quota === quota)!.position;
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).not.toContain(position(21)); // logConsume: false
    expect(ids).toContain(position(41)); // logConsume: true
    expect(ids.filter((id) => id === position(42))).toHaveLength(1); // handed over twice, one row
    // The purge (created_at < BASE + 8) took the prefix's rows; replaying the prefix's grant and charge after it
    // does not bring them back.
    expect(ids).not.toContain(prefix[0].position);
    expect(ids).not.toContain(prefix[4].position);
    expect(rows.filter((row) => row.token_name === '模型测试')).toHaveLength(1);
    const [purge]: Array<{ deleted: string }> = await context.batched.query('SELECT deleted FROM log_purges');
    expect(Number(purge.deleted)).toBeGreaterThan(0);
  });
});
