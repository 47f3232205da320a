export { applyQuotaConsumed } from '#server/modules/accounts/account.state';

/** The charge: a safe integer, or the event is not a charge this code understands (the projection stops on it). */
export function chargedQuota(data: Record<string, unknown>): number {
  const quota = data.quota;
  if (typeof quota !== 'number' || !Number.isSafeInteger(quota)) {
    throw new Error(`QuotaConsumed.quota is not a safe integer: ${JSON.stringify(quota)}`);
  }
  return quota;
}
