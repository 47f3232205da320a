import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels';
import { PricingCatalogueService } from './pricing-catalogue.service';
import { PricingModule } from './pricing.module';
import { PricingController } from './pricing.controller';

/** `GET /api/pricing`, apart from PricingModule so the relay and channel tests do not take the route with the tables. */
@Module({
  imports: [PricingModule, ChannelsModule],
  controllers: [PricingController],
  providers: [PricingCatalogueService],
})
export class PricingApiModule {}
