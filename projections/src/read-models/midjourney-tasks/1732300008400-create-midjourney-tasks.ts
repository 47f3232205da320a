import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Projection table of Midjourney tasks (new-api's `midjourneys` columns, plus the task id, the paying token and the
 * refund), one writer: the midjourney-tasks projection.
 */
export class CreateMidjourneyTasks1732300008400 implements MigrationInterface {
  name = 'CreateMidjourneyTasks1732300008400';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE midjourney_tasks (
        task_id         text     PRIMARY KEY,
        id              bigint   NOT NULL,
        code            integer  NOT NULL DEFAULT 0,
        user_id         integer  NOT NULL,
        username        text     NOT NULL DEFAULT '',
        token_id        integer  NOT NULL DEFAULT 0,
        token_unlimited boolean  NOT NULL DEFAULT false,
        action          varchar(40) NOT NULL DEFAULT '',
        mj_id           text     NOT NULL DEFAULT '',
        prompt          text     NOT NULL DEFAULT '',
        prompt_en       text     NOT NULL DEFAULT '',
        description     text     NOT NULL DEFAULT '',
        state           text     NOT NULL DEFAULT '',
        submit_time     bigint   NOT NULL DEFAULT 0,
        start_time      bigint   NOT NULL DEFAULT 0,
        finish_time     bigint   NOT NULL DEFAULT 0,
        image_url       text     NOT NULL DEFAULT '',
        status          varchar(20) NOT NULL DEFAULT '',
        progress        varchar(30) NOT NULL DEFAULT '',
        fail_reason     text     NOT NULL DEFAULT '',
        channel_id      integer  NOT NULL DEFAULT 0,
        quota           bigint   NOT NULL DEFAULT 0,
        buttons         text     NOT NULL DEFAULT '',
        properties      text     NOT NULL DEFAULT '',
        refunded        boolean  NOT NULL DEFAULT false,
        revision        integer  NOT NULL DEFAULT 0
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX midjourney_tasks_id ON midjourney_tasks (id)');
    await queryRunner.query('CREATE INDEX midjourney_tasks_user ON midjourney_tasks (user_id, id)');
    await queryRunner.query('CREATE INDEX midjourney_tasks_mj_id ON midjourney_tasks (mj_id)');
    await queryRunner.query(`CREATE INDEX midjourney_tasks_unfinished ON midjourney_tasks (id) WHERE progress <> '100%'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE midjourney_tasks');
  }
}
