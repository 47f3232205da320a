import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Logs for relay charges and purges:
 * - `logs.id` becomes the ledger position of the event the row was projected from (bigint), so ids are the same
 *   live and after a rebuild (a serial would differ after any rolled-back batch) and `ORDER BY id` is ledger order;
 * - `log_purges`: one row per LogsPurged event (DELETE /api/log/), with how many rows it deleted, which the API
 *   answers and a rebuild reproduces;
 * - indexes for the group filter and the stat queries (type 2 rows by time).
 */
export class LogsLedgerIdsAndPurges1732300003600 implements MigrationInterface {
  name = 'LogsLedgerIdsAndPurges1732300003600';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE logs ALTER COLUMN id DROP DEFAULT');
    await queryRunner.query('DROP SEQUENCE IF EXISTS logs_id_seq');
    await queryRunner.query('ALTER TABLE logs ALTER COLUMN id TYPE bigint');
    await queryRunner.query('CREATE INDEX logs_group_idx ON logs ("group")');
    await queryRunner.query(`
      CREATE TABLE log_purges (
        event_id          uuid    PRIMARY KEY,
        position          bigint  NOT NULL,
        target_timestamp  bigint  NOT NULL,
        deleted           bigint  NOT NULL,
        admin_id          integer NOT NULL DEFAULT 0,
        created_at        bigint  NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE log_purges');
    await queryRunner.query('DROP INDEX logs_group_idx');
    await queryRunner.query('ALTER TABLE logs ALTER COLUMN id TYPE integer');
    await queryRunner.query('CREATE SEQUENCE logs_id_seq OWNED BY logs.id');
    await queryRunner.query("SELECT setval('logs_id_seq', GREATEST((SELECT max(id) FROM logs), 1))");
    await queryRunner.query("ALTER TABLE logs ALTER COLUMN id SET DEFAULT nextval('logs_id_seq')");
  }
}
