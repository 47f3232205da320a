import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Projection table of token quota (one writer: the token-balances projection). */
export class CreateTokenBalances1732300003100 implements MigrationInterface {
  name = 'CreateTokenBalances1732300003100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE token_balances (
        token_id       integer PRIMARY KEY,
        user_id        integer NOT NULL DEFAULT 0,
        remain_quota   bigint  NOT NULL DEFAULT 0,
        used_quota     bigint  NOT NULL DEFAULT 0,
        accessed_time  bigint  NOT NULL DEFAULT 0,
        position       bigint  NOT NULL DEFAULT 0
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE token_balances');
  }
}
