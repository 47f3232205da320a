import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TopUpOrderEntity } from './topup-order.entity';
import { TopUpOrdersProjection } from './topup-orders.projection';

/** The projection (found by the runner through its decorator) and the entity the top-up history reads with. */
@Module({
  imports: [TypeOrmModule.forFeature([TopUpOrderEntity])],
  providers: [TopUpOrdersProjection],
  exports: [TypeOrmModule],
})
export class TopUpOrdersReadModelModule {}
