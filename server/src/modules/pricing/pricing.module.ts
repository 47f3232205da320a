import { Module } from '@nestjs/common';
import { PricingService } from './pricing.service';

/** The live pricing tables (PricingService, from the options); the rules themselves are pure functions. */
@Module({
  providers: [PricingService],
  exports: [PricingService],
})
export class PricingModule {}
