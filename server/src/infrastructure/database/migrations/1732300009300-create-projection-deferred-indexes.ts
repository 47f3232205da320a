import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The secondary indexes a rebuild dropped to create them again once the replay is done (projections/src/runner/
 * deferred-indexes.ts): each row is written in the transaction that drops its index and deleted in the one that
 * creates it again, so an index a killed rebuild left dropped is still known here, and the next rebuild or the
 * projector's next live session creates it.
 */
export class CreateProjectionDeferredIndexes1732300009300 implements MigrationInterface {
  name = 'CreateProjectionDeferredIndexes1732300009300';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE projection_deferred_indexes (
        index_name  text        PRIMARY KEY,
        table_name  text        NOT NULL,
        definition  text        NOT NULL,
        dropped_at  timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE projection_deferred_indexes');
  }
}
