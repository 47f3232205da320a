import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The low-quota reminder's tables, all written by the quota-reminder projection (modules/quota-reminder):
 * `quota_reminder_balances` is a projection table (rebuilt from the ledger); the three others are its durable
 * memory of what it has already decided and mailed, which a rebuild leaves alone so a replay never mails twice.
 */
export class CreateQuotaReminders1732300008300 implements MigrationInterface {
  name = 'CreateQuotaReminders1732300008300';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE quota_reminder_balances (
        user_id  integer PRIMARY KEY,
        quota    bigint  NOT NULL,
        revision bigint  NOT NULL
      )`);
    await queryRunner.query(`
      CREATE TABLE quota_reminders (
        user_id    integer     PRIMARY KEY,
        zone       smallint    NOT NULL,
        position   bigint      NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`
      CREATE TABLE quota_reminder_cursor (
        id       smallint PRIMARY KEY CHECK (id = 1),
        position bigint   NOT NULL
      )`);
    await queryRunner.query('INSERT INTO quota_reminder_cursor (id, position) VALUES (1, 0)');
    await queryRunner.query(`
      CREATE TABLE quota_reminder_mails (
        event_id   varchar(64)  PRIMARY KEY,
        user_id    integer      NOT NULL,
        kind       varchar(16)  NOT NULL,
        quota      bigint       NOT NULL,
        email      varchar(255) NOT NULL,
        status     varchar(16)  NOT NULL DEFAULT 'pending',
        created_at timestamptz  NOT NULL DEFAULT now(),
        queued_at  timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX quota_reminder_mails_pending ON quota_reminder_mails (created_at) WHERE status = 'pending'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE quota_reminder_mails, quota_reminder_cursor, quota_reminders, quota_reminder_balances');
  }
}
