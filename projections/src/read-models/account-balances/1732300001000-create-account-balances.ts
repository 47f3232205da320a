import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Projection table of the account streams (one writer: the account-balances projection). */
export class CreateAccountBalances1732300001000 implements MigrationInterface {
  name = 'CreateAccountBalances1732300001000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE account_balances (
        user_id            integer PRIMARY KEY,
        quota              bigint  NOT NULL DEFAULT 0,
        used_quota         bigint  NOT NULL DEFAULT 0,
        request_count      bigint  NOT NULL DEFAULT 0,
        aff_count          integer NOT NULL DEFAULT 0,
        aff_quota          bigint  NOT NULL DEFAULT 0,
        aff_history_quota  bigint  NOT NULL DEFAULT 0,
        revision           bigint  NOT NULL DEFAULT -1
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE account_balances');
  }
}
