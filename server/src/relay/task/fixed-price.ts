import { DEFAULT_MODEL_PRICE } from '../../modules/options';
import type { PricingTables } from '../../modules/pricing';

/** new-api's fallback price of a task action with no configured price (dollars). */
const FALLBACK_PRICE = 0.1;

/**
 * A task action's price (Midjourney, Suno): ModelPrice[model], else the built-in default price, else 0.1 dollars;
 * times the group ratio, in quota units (`int(price × groupRatio × QuotaPerUnit)`).
 */
export function taskPrice(tables: PricingTables, model: string, group: string): { modelPrice: number; groupRatio: number; quota: number } {
  const configured = tables.modelPrice[model];
  const modelPrice =
    typeof configured === 'number' && Number.isFinite(configured) ? configured : (DEFAULT_MODEL_PRICE[model] ?? FALLBACK_PRICE);
  const ratio = tables.groupRatio[group];
  const groupRatio = typeof ratio === 'number' && Number.isFinite(ratio) ? ratio : 1;
  return { modelPrice, groupRatio, quota: Math.trunc(modelPrice * groupRatio * tables.quotaPerUnit) };
}
