import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Projection table of asynchronous (Suno) tasks: new-api's `tasks` columns, plus this server's task key, the owner's
 * name, the paying token and the refund. One writer: the tasks projection.
 */
export class CreateTasks1732300008600 implements MigrationInterface {
  name = 'CreateTasks1732300008600';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE tasks (
        task_key        text     PRIMARY KEY,
        id              bigint   NOT NULL,
        created_at      bigint   NOT NULL DEFAULT 0,
        updated_at      bigint   NOT NULL DEFAULT 0,
        task_id         varchar(50) NOT NULL DEFAULT '',
        platform        varchar(30) NOT NULL DEFAULT '',
        user_id         integer  NOT NULL,
        username        text     NOT NULL DEFAULT '',
        token_id        integer  NOT NULL DEFAULT 0,
        token_unlimited boolean  NOT NULL DEFAULT false,
        channel_id      integer  NOT NULL DEFAULT 0,
        quota           bigint   NOT NULL DEFAULT 0,
        action          varchar(40) NOT NULL DEFAULT '',
        status          varchar(20) NOT NULL DEFAULT '',
        fail_reason     text     NOT NULL DEFAULT '',
        submit_time     bigint   NOT NULL DEFAULT 0,
        start_time      bigint   NOT NULL DEFAULT 0,
        finish_time     bigint   NOT NULL DEFAULT 0,
        progress        varchar(20) NOT NULL DEFAULT '',
        properties      text     NOT NULL DEFAULT '',
        data            text     NOT NULL DEFAULT '',
        refunded        boolean  NOT NULL DEFAULT false,
        revision        integer  NOT NULL DEFAULT 0
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX tasks_id ON tasks (id)');
    await queryRunner.query('CREATE INDEX tasks_user ON tasks (user_id, id)');
    await queryRunner.query('CREATE INDEX tasks_task_id ON tasks (task_id)');
    await queryRunner.query(`CREATE INDEX tasks_unfinished ON tasks (id) WHERE progress <> '100%'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE tasks');
  }
}
