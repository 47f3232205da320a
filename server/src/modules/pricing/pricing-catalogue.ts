import { pricingFor, type PricingTables } from './relay-pricing';

/** One model of `GET /api/pricing`, in new-api's JSON names. */
export interface PricingEntry {
  model_name: string;
  /** 0 priced by ratio, 1 a fixed price per call. */
  quota_type: 0 | 1;
  model_ratio: number;
  model_price: number;
  owner_by: '';
  completion_ratio: number;
  enable_groups: string[];
}

/**
 * The pricing page's entries: one per model some enabled channel offers, with the groups offering it. A model with
 * a ModelPrice is priced per call (its ratios 0); any other by its ratio (30 when unknown) and completion ratio.
 */
export function buildPricing(modelGroups: ReadonlyMap<string, readonly string[]>, tables: PricingTables): PricingEntry[] {
  const entries: PricingEntry[] = [];
  for (const [model, groups] of modelGroups) {
    const pricing = pricingFor(tables, model, '');
    const priced = pricing.modelPrice >= 0;
    entries.push({
      model_name: model,
      quota_type: priced ? 1 : 0,
      model_ratio: priced ? 0 : pricing.modelRatio,
      model_price: priced ? pricing.modelPrice : 0,
      owner_by: '',
      completion_ratio: priced ? 0 : pricing.completionRatio,
      enable_groups: [...groups],
    });
  }
  return entries;
}
