import { AdmissionUnavailableError, type AdmittedBy, type ReservationResult } from '../../admission/quota-admission.service';
import { type ModelPricing, priceImageRequest, pricingFor, referencePreConsume, reservationQuota } from '#server/modules/pricing/index';
import { maxTokensOf } from '../relay-request';
import { relayLocal } from './error-answer';
import { promptTokens, type RelayContext, type RelayDeps } from './relay-context';

/** Price: the quota to reserve, and new-api's pre-consumed quota its refusal message names. */
export function price(context: RelayContext, upstreamModel: string): { pricing: ModelPricing; reservation: number; referencePre: number } {
  const { tables, caller, body } = context;
  if (context.mode === 'images-generations') {
    const image = priceImageRequest(tables, body, upstreamModel, caller.group);
    const pricing: ModelPricing = { modelPrice: image.imageRatio, modelRatio: 0, completionRatio: 0, groupRatio: image.groupRatio };
    return { pricing, reservation: image.quota, referencePre: image.quota };
  }
  const pricing = pricingFor(tables, upstreamModel, caller.group);
  const maxTokens = maxTokensOf(body);
  // Text to speech and rerank are priced by their input alone: it is counted now and reserved whole.
  const promptOnly = context.mode === 'audio-speech' || context.mode === 'rerank';
  // Otherwise prompt tokens matter for the bound only when max_tokens is given; they are counted lazily (for
  // the charge, when the upstream reports no usage), keeping the tokenizer off the common hot path.
  const tokens = (promptOnly || maxTokens !== null) && pricing.modelPrice < 0 ? promptTokens(context, upstreamModel) : 0;
  const request = { promptTokens: tokens, maxTokens, promptOnly };
  return { pricing, reservation: reservationQuota(tables, pricing, request), referencePre: referencePreConsume(tables, pricing, request) };
}

/** Reserve `amount` for the user and the token; answers new-api's refusals when it does not fit. */
export async function reserve(deps: RelayDeps, context: RelayContext, amount: number, referencePre: number): Promise<AdmittedBy> {
  const { caller, request } = context;
  let result: ReservationResult;
  try {
    result = await deps.admission.reserve({
      requestId: request.requestId,
      userId: caller.user.id,
      tokenId: context.reservedTokenId,
      amount,
      leaseMs: deps.admission.leaseMs,
    });
  } catch (error) {
    throw error instanceof AdmissionUnavailableError ? quotaServiceUnavailable() : error;
  }
  if (result.ok) return result.reservation;
  if (result.reason === 'user') {
    if (result.userAvailable <= 0) throw relayLocal(403, 'user quota is not enough', 'insufficient_user_quota');
    const what = context.mode === 'images-generations' ? 'image' : context.mode.startsWith('audio') ? 'audio' : 'chat';
    throw relayLocal(
      400,
      `${what} pre-consumed quota failed, user quota: ${result.userAvailable}, need quota: ${Math.max(amount, referencePre)}`,
      'insufficient_user_quota',
    );
  }
  // An empty token is what authentication reports (the check moved here to save a Redis round trip).
  if ((result.tokenAvailable ?? 0) <= 0 && deps.authenticator.tokenExhausted) {
    throw await deps.authenticator.tokenExhausted(caller, result.tokenAvailable ?? 0);
  }
  throw relayLocal(403, '令牌额度不足', 'pre_consume_token_quota_failed');
}

/** Admission needed Redis and it stayed unreachable for RELAY_ADMISSION_REDIS_WAIT_MS: nothing was reserved or sent upstream. */
export const QUOTA_SERVICE_UNAVAILABLE = 'quota service is unavailable (Redis unreachable), please retry later';

export function quotaServiceUnavailable() {
  return relayLocal(503, QUOTA_SERVICE_UNAVAILABLE, 'quota_service_unavailable');
}

/** Gives a request's reservation back: it failed before an answer, or its answer had nothing to charge. */
export async function release(deps: RelayDeps, context: RelayContext): Promise<void> {
  context.reserved = false;
  await deps.admission
    .release({ requestId: context.request.requestId, userId: context.caller.user.id, tokenId: context.reservedTokenId })
    .catch((error: unknown) => deps.logger.error(`release failed for ${context.request.requestId}: ${String(error)}`));
}
