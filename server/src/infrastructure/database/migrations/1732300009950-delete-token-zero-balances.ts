import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Until this fix, a QuotaRefunded with `tokenId` 0 (a task charged without a token, then refunded) made the
 * token-balances projection write a row for token 0, which no token has; the charge itself never did. The fold now
 * skips it, so a rebuild writes no such row: this deletes it from the live table and from the token_balances chunks
 * of stored snapshots (rewritten with their sha256 and row count), so a rebuild, from a snapshot or not, equals live.
 */
export class DeleteTokenZeroBalances1732300009950 implements MigrationInterface {
  name = 'DeleteTokenZeroBalances1732300009950';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DELETE FROM token_balances WHERE token_id = 0');
    const chunks: Array<{ snapshot_id: string; chunk: number; payload: Buffer }> = await queryRunner.query(
      `SELECT snapshot_id, chunk, payload FROM ledger_snapshot_tables WHERE table_name = 'token_balances' AND row_count > 0`,
    );
    for (const { snapshot_id: snapshotId, chunk, payload } of chunks) {
      const lines = gunzipSync(payload).toString('utf8').split('\n');
      const kept = lines.filter((line) => (JSON.parse(line) as { token_id: number }).token_id !== 0);
      if (kept.length === lines.length) continue;
      const rewritten = gzipSync(Buffer.from(kept.join('\n'), 'utf8'));
      await queryRunner.query(
        `UPDATE ledger_snapshot_tables SET payload = $4, sha256 = $5, row_count = $6
          WHERE snapshot_id = $1 AND table_name = 'token_balances' AND chunk = $2 AND row_count = $3`,
        [snapshotId, chunk, lines.length, rewritten, createHash('sha256').update(rewritten).digest('hex'), kept.length],
      );
    }
  }

  /** Nothing to put back: the rows deleted were a wrong fold of the ledger, which the projection no longer writes. */
  async down(): Promise<void> {
    // No-op: a token 0 row cannot be restored (its figures are gone), and nothing reads one.
  }
}
