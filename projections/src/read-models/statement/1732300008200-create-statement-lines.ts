import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Projection table of the account statements (one writer: the statement projection): one line per account event,
 * keyed by its ledger position, with the running balance after it.
 */
export class CreateStatementLines1732300008200 implements MigrationInterface {
  name = 'CreateStatementLines1732300008200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE statement_lines (
        position    bigint  PRIMARY KEY,
        user_id     integer NOT NULL,
        revision    bigint  NOT NULL,
        created_at  bigint  NOT NULL,
        kind        text    NOT NULL,
        delta       bigint  NOT NULL,
        balance     bigint  NOT NULL,
        actor_type  text    NOT NULL,
        actor_id    integer NULL,
        actor_role  integer NULL,
        reason      text    NOT NULL DEFAULT '',
        request_id  text    NOT NULL DEFAULT '',
        ref         jsonb   NOT NULL DEFAULT '{}'
      )`);
    await queryRunner.query('CREATE INDEX statement_lines_user ON statement_lines (user_id, position DESC)');
    await queryRunner.query('CREATE INDEX statement_lines_user_kind ON statement_lines (user_id, kind, position DESC)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE statement_lines');
  }
}
