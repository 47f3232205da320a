import type { QuotaConsumedData } from '#server/modules/accounts/index';
import { maxTokensOf } from '../relay-request';
import type { Usage } from './charge-builder';
import type { RelayContext, RelayDeps } from './relay-context';

/**
 * The completion a chat or completion is billed for: never more than the `max_tokens` (or `max_completion_tokens`)
 * the client set, whatever the upstream reports (an upstream that ignores the limit is the operator's matter, not
 * the client's). `capped` says the reported figure was cut; the charge then carries `billingCapped: true`.
 */
export function billedUsage(context: RelayContext, usage: Usage): { usage: Usage; capped: boolean } {
  if (context.mode !== 'chat' && context.mode !== 'completions') return { usage, capped: false };
  const maxTokens = maxTokensOf(context.body);
  if (maxTokens === null || usage.completionTokens <= maxTokens) return { usage, capped: false };
  return { usage: { ...usage, completionTokens: maxTokens }, capped: true };
}

/**
 * Bounds the charge by what admission allowed (QuotaAdmissionService.boundCharge): a charge above its reservation
 * takes only what the user and the token still have available, so no balance goes below zero. A cut charge is
 * flagged `billingCapped`. Nothing to do for a request that reserved nothing. Costs a Redis command only for a charge
 * above its reservation (never before the upstream call).
 */
export function boundCharge(deps: RelayDeps, context: RelayContext, data: QuotaConsumedData, capped: boolean): Promise<void> | undefined {
  const reservation = context.reservation;
  // Within its reservation (the common case) the charge stands as it is: no admission call and no promise.
  if (reservation && !(Number.isInteger(data.quota) && data.quota <= reservation.amount)) {
    return boundByAdmission(deps, context, reservation, data, capped);
  }
  if (capped) data.billingCapped = true;
  return undefined;
}

async function boundByAdmission(
  deps: RelayDeps,
  context: RelayContext,
  reservation: NonNullable<RelayContext['reservation']>,
  data: QuotaConsumedData,
  capped: boolean,
): Promise<void> {
  // Admission unreachable: the reservation is all this request was allowed (the bound holds; the excess is lost).
  const allowed = await deps.admission
    .boundCharge({
      requestId: context.request.requestId,
      userId: context.caller.user.id,
      tokenId: context.reservedTokenId,
      reservation,
      charge: data.quota,
    })
    .catch((error: unknown) => {
      deps.logger.error(`charge bound failed for ${context.request.requestId}: ${String(error)}`);
      return Math.min(data.quota, reservation.amount);
    });
  if (allowed < data.quota) {
    data.quota = allowed;
    capped = true;
  }
  if (capped) data.billingCapped = true;
}
