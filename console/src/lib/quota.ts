import type { PublicStatus } from './types';

/** new-api's default: 500000 quota units are one US dollar. */
export const DEFAULT_QUOTA_PER_UNIT = 500000;

export const quotaPerUnit = (status: PublicStatus): number => {
  const value = Number(status.quota_per_unit);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_QUOTA_PER_UNIT;
};

/** Short numbers as new-api's UI shows them: k from 1e4, M from 1e6, B from 1e9. */
export const renderNumber = (value: number): string => {
  if (value >= 1e9) return `${(value / 1e9).toFixed(1)}B`;
  if (value >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (value >= 1e4) return `${(value / 1e3).toFixed(1)}k`;
  return String(value);
};

/**
 * Raw units or currency, as the public status decides (display_in_currency defaults to true on the server).
 * Currency is shown like new-api's UI: a dollar sign and two decimals.
 */
export const renderQuota = (quota: number | null | undefined, status: PublicStatus, digits = 2): string => {
  const value = Number(quota ?? 0);
  if (status.display_in_currency === false) return renderNumber(value);
  return `$${(value / quotaPerUnit(status)).toFixed(digits)}`;
};
