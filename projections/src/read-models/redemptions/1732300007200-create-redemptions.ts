import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Projection table of redemption codes (one writer: the redemptions projection). */
export class CreateRedemptions1732300007200 implements MigrationInterface {
  name = 'CreateRedemptions1732300007200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE redemptions (
        id             integer PRIMARY KEY,
        user_id        integer     NOT NULL DEFAULT 0,
        key            char(32)    NOT NULL,
        status         smallint    NOT NULL DEFAULT 1,
        name           text        NOT NULL DEFAULT '',
        quota          bigint      NOT NULL DEFAULT 100,
        created_time   bigint      NOT NULL DEFAULT 0,
        redeemed_time  bigint      NOT NULL DEFAULT 0,
        used_user_id   integer     NOT NULL DEFAULT 0,
        deleted_at     timestamptz NULL,
        revision       integer     NOT NULL DEFAULT 0
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX redemptions_key ON redemptions (key)');
    await queryRunner.query('CREATE INDEX redemptions_name ON redemptions (name text_pattern_ops)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE redemptions');
  }
}
