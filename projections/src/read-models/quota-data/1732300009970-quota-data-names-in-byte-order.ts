import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The dashboard's hourly rows, keyed and sorted for less work per charge and per rebuild (docs/ledger.md
 * "Names in byte order"):
 * - the row's unique key puts its numbers first, (user_id, created_at, model_name, username): one user's rows differ
 *   by hour far more often than by name, so most comparisons end on two integers instead of two text comparisons
 *   (and a user's own range query, `user_id = … AND created_at …`, now reads a range of it);
 * - `username` and `model_name` compare in byte order (COLLATE "C"). They are identifiers, matched for equality and
 *   never sorted for a reader but in the all-users view, which asks for the database's order itself. Equality is the
 *   same under any deterministic collation; sorting them (a rebuild builds each index once, from every row) no longer
 *   goes through the locale.
 * The columns keep their type, so no row is rewritten; Postgres builds the indexes on them again. A rebuild that died
 * may have left the key dropped and its old definition recorded for the projector to add again: that record goes
 * too, or the old key would come back.
 */
export class QuotaDataNamesInByteOrder1732300009970 implements MigrationInterface {
  name = 'QuotaDataNamesInByteOrder1732300009970';

  async up(queryRunner: QueryRunner): Promise<void> {
    await replaceRowKey(queryRunner, 'user_id, created_at, model_name, username');
    await queryRunner.query(`
      ALTER TABLE quota_data
        ALTER COLUMN username TYPE varchar(64) COLLATE "C",
        ALTER COLUMN model_name TYPE varchar(256) COLLATE "C"`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE quota_data
        ALTER COLUMN username TYPE varchar(64) COLLATE "default",
        ALTER COLUMN model_name TYPE varchar(256) COLLATE "default"`);
    await replaceRowKey(queryRunner, 'user_id, username, model_name, created_at');
  }
}

async function replaceRowKey(queryRunner: QueryRunner, columns: string): Promise<void> {
  await queryRunner.query('ALTER TABLE quota_data DROP CONSTRAINT IF EXISTS quota_data_row');
  await queryRunner.query(`DELETE FROM projection_deferred_indexes WHERE index_name = 'quota_data_row'`);
  await queryRunner.query(`ALTER TABLE quota_data ADD CONSTRAINT quota_data_row UNIQUE (${columns})`);
}
