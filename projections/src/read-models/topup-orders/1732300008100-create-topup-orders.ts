import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Projection table of online top-up orders (one writer: the topup-orders projection). */
export class CreateTopUpOrders1732300008100 implements MigrationInterface {
  name = 'CreateTopUpOrders1732300008100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE topup_orders (
        trade_no        text             PRIMARY KEY,
        id              bigint           NOT NULL,
        user_id         integer          NOT NULL,
        username        text             NOT NULL DEFAULT '',
        amount          bigint           NOT NULL,
        quota           bigint           NOT NULL,
        money           double precision NOT NULL,
        payment_method  text             NOT NULL,
        status          text             NOT NULL DEFAULT 'pending',
        paid_money      double precision NOT NULL DEFAULT 0,
        gateway_trade_no text            NOT NULL DEFAULT '',
        create_time     bigint           NOT NULL,
        complete_time   bigint           NOT NULL DEFAULT 0,
        revision        integer          NOT NULL DEFAULT 0
      )`);
    await queryRunner.query('CREATE UNIQUE INDEX topup_orders_id ON topup_orders (id)');
    await queryRunner.query('CREATE INDEX topup_orders_user ON topup_orders (user_id, id)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE topup_orders');
  }
}
