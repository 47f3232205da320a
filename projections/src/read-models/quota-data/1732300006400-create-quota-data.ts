import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Projection table of the data dashboard's hourly rows (one writer: the quota-data projection). */
export class CreateQuotaData1732300006400 implements MigrationInterface {
  name = 'CreateQuotaData1732300006400';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE quota_data (
        id          bigint       PRIMARY KEY,
        user_id     integer      NOT NULL,
        username    varchar(64)  NOT NULL DEFAULT '',
        model_name  varchar(256) NOT NULL DEFAULT '',
        created_at  bigint       NOT NULL,
        count       integer      NOT NULL DEFAULT 0,
        quota       bigint       NOT NULL DEFAULT 0,
        token_used  bigint       NOT NULL DEFAULT 0,
        position    bigint       NOT NULL DEFAULT 0,
        CONSTRAINT quota_data_row UNIQUE (user_id, username, model_name, created_at)
      )`);
    await queryRunner.query('CREATE INDEX quota_data_created_at ON quota_data (created_at)');
    await queryRunner.query('CREATE INDEX quota_data_username_created_at ON quota_data (username, created_at)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE quota_data');
  }
}
