import { Module } from '@nestjs/common';
import { QuotaDataReadModelModule } from '#projections/read-models/quota-data/quota-data-read-model.module';
import { DataDashboardController } from './data-dashboard.controller';
import { ListQuotaDataHandler } from './usecases/list-quota-data/list-quota-data.handler';

/** `/api/data/*` over the `quota_data` read model (projections/src/read-models/quota-data, kept by its projection). */
@Module({
  imports: [QuotaDataReadModelModule],
  controllers: [DataDashboardController],
  providers: [ListQuotaDataHandler],
})
export class DataDashboardModule {}
