import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One row per projection: the global position it has applied up to. Written in the same transaction as the
 * projection's read-model rows (projections/src/runner), so the two can never disagree.
 */
export class CreateProjectionCheckpoints1732300000200 implements MigrationInterface {
  name = 'CreateProjectionCheckpoints1732300000200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE projection_checkpoints (
        name           text        PRIMARY KEY,
        position       bigint      NOT NULL DEFAULT 0,
        updated_at     timestamptz NOT NULL DEFAULT now(),
        last_error     text        NULL,
        last_error_at  timestamptz NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE projection_checkpoints');
  }
}
