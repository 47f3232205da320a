import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Channel configuration (`channels`, written only by the channels command handlers) and the routing table
 * new-api calls abilities (group × model × channel). Status, test and balance figures and the channel's used
 * quota are not here: they are the channel-status projection's (`channel_status`), folded from `channel-{id}`.
 */
export class CreateChannels1732300004000 implements MigrationInterface {
  name = 'CreateChannels1732300004000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE channels (
        id                   serial PRIMARY KEY,
        type                 integer NOT NULL DEFAULT 0,
        key                  text    NOT NULL DEFAULT '',
        openai_organization  text    NULL,
        test_model           text    NULL,
        name                 text    NOT NULL DEFAULT '',
        weight               integer NOT NULL DEFAULT 0,
        created_time         bigint  NOT NULL DEFAULT 0,
        base_url             text    NOT NULL DEFAULT '',
        other                text    NOT NULL DEFAULT '',
        models               text    NOT NULL DEFAULT '',
        "group"              text    NOT NULL DEFAULT 'default',
        model_mapping        text    NOT NULL DEFAULT '',
        status_code_mapping  text    NOT NULL DEFAULT '',
        priority             bigint  NOT NULL DEFAULT 0,
        auto_ban             integer NOT NULL DEFAULT 1,
        tag                  text    NULL,
        setting              text    NOT NULL DEFAULT '',
        param_override       text    NOT NULL DEFAULT '',
        header_override      text    NOT NULL DEFAULT ''
      )`);
    await queryRunner.query('CREATE INDEX channels_name_idx ON channels (name)');
    await queryRunner.query(`
      CREATE TABLE abilities (
        "group"     varchar(64)  NOT NULL,
        model       varchar(255) NOT NULL,
        channel_id  integer      NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
        enabled     boolean      NOT NULL DEFAULT true,
        priority    bigint       NOT NULL DEFAULT 0,
        weight      integer      NOT NULL DEFAULT 0,
        tag         text         NULL,
        PRIMARY KEY ("group", model, channel_id)
      )`);
    await queryRunner.query('CREATE INDEX abilities_channel_id_idx ON abilities (channel_id)');
    await queryRunner.query('CREATE INDEX abilities_priority_idx ON abilities (priority)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE abilities');
    await queryRunner.query('DROP TABLE channels');
  }
}
