import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { QuotaDataEntity } from './quota-data.entity';
import { QuotaDataProjection } from './quota-data.projection';

/** The projection (found by the runner through its decorator) and the entity the dashboard queries read with. */
@Module({
  imports: [TypeOrmModule.forFeature([QuotaDataEntity])],
  providers: [QuotaDataProjection],
  exports: [TypeOrmModule],
})
export class QuotaDataReadModelModule {}
