import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The logs projection table (new-api's `logs` columns, `channel_id` serialised as `channel` by the log API),
 * plus `event_id`: the ledger event the row was projected from, unique so a replay never duplicates a row.
 * Indexes follow the log list's filters (user, time, type, username/model, token, channel).
 */
export class CreateLogs1732300001100 implements MigrationInterface {
  name = 'CreateLogs1732300001100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE logs (
        id                 serial       PRIMARY KEY,
        user_id            integer      NOT NULL DEFAULT 0,
        created_at         bigint       NOT NULL,
        type               integer      NOT NULL DEFAULT 0,
        content            text         NOT NULL DEFAULT '',
        username           varchar(64)  NOT NULL DEFAULT '',
        token_name         varchar(128) NOT NULL DEFAULT '',
        model_name         varchar(256) NOT NULL DEFAULT '',
        quota              bigint       NOT NULL DEFAULT 0,
        prompt_tokens      integer      NOT NULL DEFAULT 0,
        completion_tokens  integer      NOT NULL DEFAULT 0,
        use_time           integer      NOT NULL DEFAULT 0,
        is_stream          boolean      NOT NULL DEFAULT false,
        channel_id         integer      NOT NULL DEFAULT 0,
        token_id           integer      NOT NULL DEFAULT 0,
        "group"            varchar(64)  NOT NULL DEFAULT '',
        other              text         NOT NULL DEFAULT '',
        event_id           uuid         NOT NULL,
        CONSTRAINT logs_event_id_key UNIQUE (event_id)
      )`);
    await queryRunner.query('CREATE INDEX logs_user_id_idx ON logs (user_id)');
    await queryRunner.query('CREATE INDEX logs_created_at_id_idx ON logs (created_at, id)');
    await queryRunner.query('CREATE INDEX logs_created_at_type_idx ON logs (created_at, type)');
    await queryRunner.query('CREATE INDEX logs_model_name_username_idx ON logs (model_name, username)');
    await queryRunner.query('CREATE INDEX logs_username_idx ON logs (username)');
    await queryRunner.query('CREATE INDEX logs_token_name_idx ON logs (token_name)');
    await queryRunner.query('CREATE INDEX logs_channel_id_idx ON logs (channel_id)');
    await queryRunner.query('CREATE INDEX logs_token_id_idx ON logs (token_id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE logs');
  }
}
