import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Configuration tables written by command handlers (never by projections). */
export class CreateUsersAndOptions1732300000000 implements MigrationInterface {
  name = 'CreateUsersAndOptions1732300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE users (
        id            serial PRIMARY KEY,
        username      varchar(64)  NOT NULL,
        password      varchar(100) NOT NULL,
        display_name  varchar(64)  NOT NULL DEFAULT '',
        role          integer      NOT NULL DEFAULT 1,
        status        integer      NOT NULL DEFAULT 1,
        email         varchar(64)  NOT NULL DEFAULT '',
        github_id     varchar(64)  NOT NULL DEFAULT '',
        wechat_id     varchar(64)  NOT NULL DEFAULT '',
        telegram_id   varchar(64)  NOT NULL DEFAULT '',
        access_token  char(32)     NULL,
        "group"       varchar(64)  NOT NULL DEFAULT 'default',
        aff_code      varchar(32)  NULL,
        inviter_id    integer      NOT NULL DEFAULT 0,
        created_at    timestamptz  NOT NULL DEFAULT now(),
        deleted_at    timestamptz  NULL
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX users_username_key ON users (username)`);
    await queryRunner.query(`CREATE UNIQUE INDEX users_access_token_key ON users (access_token) WHERE access_token IS NOT NULL`);
    await queryRunner.query(`CREATE UNIQUE INDEX users_aff_code_key ON users (aff_code) WHERE aff_code IS NOT NULL AND aff_code <> ''`);
    for (const column of ['display_name', 'email', 'github_id', 'wechat_id', 'telegram_id', 'inviter_id']) {
      await queryRunner.query(`CREATE INDEX users_${column}_idx ON users (${column})`);
    }
    await queryRunner.query(`
      CREATE TABLE options (
        key   varchar(128) PRIMARY KEY,
        value text NOT NULL DEFAULT ''
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE options');
    await queryRunner.query('DROP TABLE users');
  }
}
