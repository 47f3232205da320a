import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `username` and `model_name` of the logs compare in byte order (COLLATE "C"), on every partition (docs/ledger.md
 * "Names in byte order"). They are identifiers: the log filters match a username for equality and a model name with
 * `LIKE`, and no reader sorts by either. Equality is the same under any deterministic collation; what changes:
 * - a model filter that is a prefix pattern (`gpt-4%`) reads a range of `logs_model_name_idx`, where under a
 *   linguistic collation Postgres cannot use a plain index for LIKE and read every row of the period;
 * - building `logs_username_idx` (a rebuild builds it once, from every row) no longer sorts through the locale: less
 *   than half its time.
 * The columns keep their type, so no row is rewritten; Postgres builds the two indexes again. An index a dead
 * rebuild left dropped comes back from its recorded definition on these columns, so in byte order too.
 */
export class LogsNamesInByteOrder1732300009980 implements MigrationInterface {
  name = 'LogsNamesInByteOrder1732300009980';

  async up(queryRunner: QueryRunner): Promise<void> {
    await collate(queryRunner, '"C"');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await collate(queryRunner, '"default"');
  }
}

async function collate(queryRunner: QueryRunner, collation: string): Promise<void> {
  await queryRunner.query(`
    ALTER TABLE logs
      ALTER COLUMN username TYPE varchar(64) COLLATE ${collation},
      ALTER COLUMN model_name TYPE varchar(256) COLLATE ${collation}`);
}
