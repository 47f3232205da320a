import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Relay charges, nearly every statement line, stored compact (statement-line.ts, statementLineValues): their token
 * id, token and model names in columns and their usage source and end reason as word indexes, instead of a jsonb
 * `ref` that repeated its key names and the words on every line, and no `reason` when it is the relay's own. The
 * by-kind index leaves charges out: a filter on `relay_charge` reads the per-user index, where nearly every line is
 * one, so only the rare kinds need an index of their own. A request id that is a uuid (the relay's, and those the
 * console's requests get) is stored as one. Lines already stored keep their `ref` and `reason`, and
 * the reader takes either form, so nothing is rewritten here; a rebuild stores them compact.
 */
export class CompactStatementChargeLines1732300009960 implements MigrationInterface {
  name = 'CompactStatementChargeLines1732300009960';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE statement_lines
        ALTER COLUMN reason DROP NOT NULL,
        ALTER COLUMN request_id DROP NOT NULL,
        ALTER COLUMN ref DROP NOT NULL,
        ADD COLUMN request_uuid uuid NULL,
        ADD COLUMN token_id integer NULL,
        ADD COLUMN token_name text NULL,
        ADD COLUMN model text NULL,
        ADD COLUMN usage_source smallint NULL,
        ADD COLUMN end_reason smallint NULL`);
    await replaceKindIndex(queryRunner, `WHERE kind <> 'relay_charge'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      UPDATE statement_lines
         SET ref = jsonb_strip_nulls(jsonb_build_object(
               'token_id', coalesce(token_id, 0), 'token_name', coalesce(token_name, ''), 'model', coalesce(model, ''),
               'usage_source', (ARRAY['upstream', 'estimated'])[usage_source + 1],
               'end_reason', (ARRAY['completed', 'client_gone', 'upstream_error', 'timeout', 'cut_stream'])[end_reason + 1])),
             reason = coalesce(reason, 'relay_request')
       WHERE ref IS NULL`);
    await queryRunner.query('UPDATE statement_lines SET request_id = request_uuid::text WHERE request_id IS NULL');
    await queryRunner.query(`
      ALTER TABLE statement_lines
        DROP COLUMN token_id, DROP COLUMN token_name, DROP COLUMN model, DROP COLUMN usage_source, DROP COLUMN end_reason,
        DROP COLUMN request_uuid,
        ALTER COLUMN reason SET NOT NULL,
        ALTER COLUMN request_id SET NOT NULL,
        ALTER COLUMN ref SET NOT NULL`);
    await replaceKindIndex(queryRunner, '');
  }
}

/**
 * The by-kind index made again with `predicate`. A rebuild that died may have left it dropped, its old definition
 * recorded for the projector to create again: that record goes too, or the old index would come back.
 */
async function replaceKindIndex(queryRunner: QueryRunner, predicate: string): Promise<void> {
  await queryRunner.query('DROP INDEX IF EXISTS statement_lines_user_kind');
  await queryRunner.query(`DELETE FROM projection_deferred_indexes WHERE index_name = 'statement_lines_user_kind'`);
  await queryRunner.query(`CREATE INDEX statement_lines_user_kind ON statement_lines (user_id, kind, position DESC) ${predicate}`);
}
