import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Projection table of the channel streams and the relay's charges (one writer: the channel-status projection). */
export class CreateChannelStatus1732300004100 implements MigrationInterface {
  name = 'CreateChannelStatus1732300004100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE channel_status (
        channel_id            integer          PRIMARY KEY,
        status                integer          NOT NULL DEFAULT 1,
        response_time         integer          NOT NULL DEFAULT 0,
        test_time             bigint           NOT NULL DEFAULT 0,
        balance               double precision NOT NULL DEFAULT 0,
        balance_updated_time  bigint           NOT NULL DEFAULT 0,
        used_quota            bigint           NOT NULL DEFAULT 0,
        status_reason         text             NULL,
        status_time           bigint           NULL,
        position              bigint           NOT NULL DEFAULT 0
      )`);
    await queryRunner.query('CREATE INDEX channel_status_status_idx ON channel_status (status)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE channel_status');
  }
}
