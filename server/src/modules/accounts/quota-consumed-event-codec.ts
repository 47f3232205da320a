import { CHARGE_END_REASONS, type ChargeEndReason, USAGE_SOURCES, type UsageSource } from './quota-consumed.event';

/**
 * The charge's usage source as stored, checked: one of USAGE_SOURCES, else undefined. Events written before the
 * field existed (and any value this code does not know) read as unknown; nothing is inferred from the counts.
 */
export function quotaConsumedUsageSource(data: Record<string, unknown>): UsageSource | undefined {
  const value = data.usageSource;
  return (USAGE_SOURCES as readonly unknown[]).includes(value) ? (value as UsageSource) : undefined;
}

/** The charge's end reason as stored, checked: one of CHARGE_END_REASONS, else undefined (older events: unknown). */
export function quotaConsumedEndReason(data: Record<string, unknown>): ChargeEndReason | undefined {
  const value = data.endReason;
  return (CHARGE_END_REASONS as readonly unknown[]).includes(value) ? (value as ChargeEndReason) : undefined;
}
