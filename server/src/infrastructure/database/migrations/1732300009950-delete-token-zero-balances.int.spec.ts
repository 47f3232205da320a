import { DataSource } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { restoreSnapshot, takeSnapshot } from '#projections/runner/projection-snapshot';
import { refundsAndCredits } from '../../../../../projections/test/bulk-cases';
import { handledBy } from '../../../../../projections/test/batch-equivalence';
import { DeleteTokenZeroBalances1732300009950 } from './1732300009950-delete-token-zero-balances';
import { TokenBalancesProjection } from '#projections/read-models/token-balances/token-balances.projection';

// apply() uses neither the admission service nor the data source (afterCommit does).
const projection = new TokenBalancesProjection(null as never, null as never);

/**
 * An installation that folded a refund of a tokenless charge before the fix: its live table and its snapshot hold a
 * row for token 0 (the old fold's figures). After the migration neither does, the other rows are as they were, and a
 * restore of the rewritten snapshot (sha256 checked) equals the live table, which is what the fixed fold gives.
 */
describe('migration 1732300009950: token_balances rows for token 0 deleted, live and in snapshots', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  const migration = new DeleteTokenZeroBalances1732300009950();
  const rows = async () =>
    (await dataSource.query(
      'SELECT token_id, user_id, remain_quota, used_quota, accessed_time, position FROM token_balances ORDER BY token_id',
    )) as Array<Record<string, unknown>>;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await new DataSource({ type: 'postgres', url: database.url }).initialize();
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  it('deletes the token 0 row from the table and from the snapshot chunks, and nothing else', async () => {
    const events = handledBy(projection, refundsAndCredits());
    await dataSource.transaction(async (manager) => {
      for (const event of events) await projection.apply(event, manager);
    });
    const fixed = await rows();
    expect(fixed.map((row) => row.token_id)).toEqual([101, 102, 555]);
    // What the fold before the fix left: the refund of 8500 charged without a token, on token 0.
    await dataSource.query(
      'INSERT INTO token_balances (token_id, user_id, remain_quota, used_quota, accessed_time, position) VALUES (0, 2, 8500, -8500, 0, 21)',
    );
    const last = events[events.length - 1].position;
    await dataSource.query(`INSERT INTO projection_checkpoints (name, position) VALUES ($1, $2)`, [projection.name, last]);
    const snapshot = await takeSnapshot(dataSource, [projection], { reason: 'before the fix' });
    expect(snapshot.projections[0].rows).toEqual({ token_balances: 4 });

    const runner = dataSource.createQueryRunner();
    try {
      await migration.up(runner);
      const chunks = await runner.query(`SELECT chunk, row_count, sha256 FROM ledger_snapshot_tables WHERE table_name = 'token_balances'`);
      expect(chunks).toEqual([{ chunk: 0, row_count: 3, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
      // Again: nothing left to change.
      await migration.up(runner);
      expect(await runner.query(`SELECT chunk, row_count, sha256 FROM ledger_snapshot_tables WHERE table_name = 'token_balances'`)).toEqual(
        chunks,
      );
      await migration.down();
    } finally {
      await runner.release();
    }
    expect(await rows()).toEqual(fixed);

    await dataSource.transaction(async (manager) => {
      await manager.query('TRUNCATE token_balances');
      expect(await restoreSnapshot(manager, snapshot.id, [projection])).toEqual(new Map([[projection.name, last]]));
    });
    expect(await rows()).toEqual(fixed);
  });
});
