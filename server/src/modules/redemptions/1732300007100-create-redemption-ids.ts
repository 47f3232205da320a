import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Redemption code ids: a sequence, so api processes on one database never hand out the same id. */
export class CreateRedemptionIds1732300007100 implements MigrationInterface {
  name = 'CreateRedemptionIds1732300007100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('CREATE SEQUENCE redemption_ids AS integer START 1');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP SEQUENCE redemption_ids');
  }
}
