import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RedemptionEntity } from './redemption.entity';
import { RedemptionsProjection } from './redemptions.projection';

/** The projection (found by the runner through its decorator) and the entity redemption queries read with. */
@Module({
  imports: [TypeOrmModule.forFeature([RedemptionEntity])],
  providers: [RedemptionsProjection],
  exports: [TypeOrmModule],
})
export class RedemptionsReadModelModule {}
