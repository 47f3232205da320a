import { quotaPerUnit } from './quota';
import type { PublicStatus } from './types';

/** Billing types of a pricing entry: 0 by token usage and ratios, 1 a fixed price per call. */
export const QUOTA_TYPE_RATIO = 0;
export const QUOTA_TYPE_PRICE = 1;

/** One model of `GET /api/pricing`. */
export interface PricingEntry {
  model_name: string;
  quota_type: number;
  model_ratio: number;
  model_price: number;
  owner_by: string;
  completion_ratio: number;
  enable_groups: string[];
}

/** The whole answer: the entries in `data` and the group ratios beside them. */
export interface PricingAnswer {
  data: PricingEntry[];
  group_ratio: Record<string, number>;
}

/** An unknown group is billed at ratio 1, as the server does. */
export const groupRatioOf = (ratios: Record<string, number>, group: string): number => {
  const ratio = ratios[group];
  return typeof ratio === 'number' && Number.isFinite(ratio) ? ratio : 1;
};

export interface ModelPrice {
  /** USD per 1M prompt tokens (ratio billing). */
  input?: number;
  /** USD per 1M completion tokens (ratio billing). */
  completion?: number;
  /** USD per call (fixed-price billing). */
  perCall?: number;
}

/**
 * USD prices for one group: ratio 1 is one quota unit per token, so 1M tokens cost 1e6 / QuotaPerUnit dollars
 * ($2 with the default 500000); fixed prices are already in USD per call.
 */
export const modelPrice = (entry: PricingEntry, groupRatio: number, status: PublicStatus): ModelPrice => {
  if (entry.quota_type === QUOTA_TYPE_PRICE) return { perCall: entry.model_price * groupRatio };
  const perMillion = (1e6 / quotaPerUnit(status)) * entry.model_ratio * groupRatio;
  return { input: perMillion, completion: perMillion * entry.completion_ratio };
};

/** Dollars with up to six decimals, without trailing zeros (0.15 not 0.150000). */
export const formatUsd = (value: number): string => `$${Number(value.toFixed(6))}`;

/** Case-insensitive substring match on the model name; a blank filter keeps everything. */
export const matchesModel = (entry: PricingEntry, filter: string): boolean => {
  const needle = filter.trim().toLowerCase();
  return !needle || entry.model_name.toLowerCase().includes(needle);
};
