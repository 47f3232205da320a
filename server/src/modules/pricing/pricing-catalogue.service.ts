import { Injectable } from '@nestjs/common';
import { ChannelRouter } from '../channels';
import { buildPricing, type PricingEntry } from './pricing-catalogue';
import { PricingService } from './pricing.service';

export interface PricingAnswer {
  data: PricingEntry[];
  group_ratio: Readonly<Record<string, number>>;
}

interface Cached {
  modelGroups: ReadonlyMap<string, readonly string[]>;
  modelRatio: object;
  completionRatio: object;
  modelPrice: object;
  entries: PricingEntry[];
}

/**
 * `GET /api/pricing`, computed once per routing snapshot and ratio tables: the router keeps its model → groups
 * map and PricingService its parsed tables until a reload or an option change, so comparing identities tells
 * when to rebuild, with no timer.
 */
@Injectable()
export class PricingCatalogueService {
  private cached: Cached | null = null;

  constructor(
    private readonly router: ChannelRouter,
    private readonly pricing: PricingService,
  ) {}

  answer(): PricingAnswer {
    const tables = this.pricing.tables();
    const modelGroups = this.router.enabledModelGroups();
    const cached = this.cached;
    if (
      cached &&
      cached.modelGroups === modelGroups &&
      cached.modelRatio === tables.modelRatio &&
      cached.completionRatio === tables.completionRatio &&
      cached.modelPrice === tables.modelPrice
    ) {
      return { data: cached.entries, group_ratio: tables.groupRatio };
    }
    const entries = buildPricing(modelGroups, tables);
    this.cached = {
      modelGroups,
      modelRatio: tables.modelRatio,
      completionRatio: tables.completionRatio,
      modelPrice: tables.modelPrice,
      entries,
    };
    return { data: entries, group_ratio: tables.groupRatio };
  }
}
