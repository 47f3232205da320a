import { Controller, Get } from '@nestjs/common';
import { PricingCatalogueService } from './pricing-catalogue.service';

/** The public pricing page's data; rate limited with the other /api routes, no session needed. */
@Controller('api')
export class PricingController {
  constructor(private readonly catalogue: PricingCatalogueService) {}

  @Get('pricing')
  pricing() {
    const { data, group_ratio } = this.catalogue.answer();
    return { success: true, message: '', data, group_ratio };
  }
}
