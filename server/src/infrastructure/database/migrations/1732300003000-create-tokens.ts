import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Token configuration (one writer: the tokens command handlers). Balances are the `token_balances` projection. */
export class CreateTokens1732300003000 implements MigrationInterface {
  name = 'CreateTokens1732300003000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE tokens (
        id                    serial        PRIMARY KEY,
        user_id               integer       NOT NULL,
        key                   char(48)      NOT NULL,
        status                integer       NOT NULL DEFAULT 1,
        name                  varchar(64)   NOT NULL DEFAULT '',
        created_time          bigint        NOT NULL,
        accessed_time         bigint        NOT NULL,
        expired_time          bigint        NOT NULL DEFAULT -1,
        unlimited_quota       boolean       NOT NULL DEFAULT false,
        model_limits_enabled  boolean       NOT NULL DEFAULT false,
        model_limits          varchar(1024) NOT NULL DEFAULT '',
        allow_ips             text          NULL DEFAULT '',
        "group"               varchar(64)   NOT NULL DEFAULT '',
        deleted_at            timestamptz   NULL
      )`);
    // Unique across soft-deleted rows too, as new-api's index: a deleted key is never handed out again.
    await queryRunner.query('CREATE UNIQUE INDEX tokens_key_key ON tokens (key)');
    await queryRunner.query('CREATE INDEX tokens_user_id_idx ON tokens (user_id, id DESC) WHERE deleted_at IS NULL');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE tokens');
  }
}
