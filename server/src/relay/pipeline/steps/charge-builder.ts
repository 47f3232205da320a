import type { TokenUsage } from '#server/upstreams/upstream-adapter';
import { consumeContent } from '#projections/read-models/logs/consume-log-wording';
import { finalQuota, type ModelPricing, priceImageRequest, pricingFor } from '#server/modules/pricing/index';
import type { RoutableChannel } from '../../relay-ports';
import type { ChargeEndReason, QuotaConsumedData, UsageSource } from '#server/modules/accounts/index';
import { promptTokens, type RelayContext, type RelayDeps } from './relay-context';
import { billedUsage, boundCharge } from './charge-bound';

/** What an answer used, as the charge counts it, and where the counts came from. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  source: UsageSource;
}

/** The upstream's own report. */
export function fromTokenUsage(usage: TokenUsage): Usage {
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
    source: 'upstream',
  };
}

/**
 * The estimate of a request whose answer never came (the client left and the drain bound ran out, or the answer
 * broke off): its prompt counted here (an image generation: its n; a transcription: nothing, its input is audio),
 * no completion.
 */
export function estimatedUsage(context: RelayContext, upstreamModel: string): Usage {
  const mode = context.mode;
  let prompt: number;
  if (mode === 'images-generations') prompt = imageCount(context);
  else if (mode === 'audio-transcriptions' || mode === 'audio-translations') prompt = 0;
  else prompt = promptTokens(context, upstreamModel);
  return { promptTokens: prompt, completionTokens: 0, cachedTokens: 0, source: 'estimated' };
}

export function imageCount(context: RelayContext): number {
  const n = context.body.n;
  return typeof n === 'number' && n > 0 ? Math.trunc(n) : 1;
}

/** `reason`, unless the client left before the end: then the request ended because of that. */
export function endedBy(context: RelayContext, reason: ChargeEndReason): ChargeEndReason {
  return context.request.signal.aborted ? 'client_gone' : reason;
}

/** The request's QuotaConsumed: the facts of the answer and its price at the answering channel's model. */
export function buildCharge(
  deps: RelayDeps,
  context: RelayContext,
  channel: RoutableChannel,
  upstreamModel: string,
  usage: Usage,
  firstTokenMs: number | null,
  endReason: ChargeEndReason,
): QuotaConsumedData {
  const { caller, tables } = context;
  let pricing: ModelPricing;
  let quota: number;
  // The log wording is derived from the ratios by the logs projection; only an image's size and quality are not.
  let content: string | undefined;
  if (context.mode === 'images-generations') {
    const image = priceImageRequest(tables, context.body, upstreamModel, caller.group);
    pricing = { modelPrice: image.imageRatio, modelRatio: 0, completionRatio: 0, groupRatio: image.groupRatio };
    quota = image.quota;
    content = `${consumeContent(pricing, usage, false)} , 大小 ${image.size}, 品质 ${image.quality}`;
  } else {
    pricing = pricingFor(tables, upstreamModel, caller.group);
    quota = finalQuota(tables, pricing, usage);
  }
  const now = Date.now();
  const data: QuotaConsumedData = {
    requestId: context.request.requestId,
    userId: caller.user.id,
    username: caller.user.username,
    tokenId: caller.token.id,
    tokenName: caller.token.name,
    group: caller.group,
    modelName: context.model,
    upstreamModel,
    channelId: channel.id,
    channelName: channel.name,
    channelPath: [...context.channelPath],
    relayMode: context.mode,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    cachedTokens: usage.cachedTokens,
    modelRatio: pricing.modelRatio,
    completionRatio: pricing.completionRatio,
    groupRatio: pricing.groupRatio,
    modelPrice: pricing.modelPrice,
    quota,
    tokenUnlimited: context.reservedTokenId === null,
    isStream: context.isStream,
    useTimeSeconds: Math.floor((now - context.startedAt) / 1000),
    firstTokenMs: firstTokenMs ?? 0,
    createdAt: Math.floor(context.startedAt / 1000),
    usageSource: usage.source,
    endReason,
  };
  if (content !== undefined) data.content = content;
  if (!deps.options.getBool('LogConsumeEnabled')) data.logConsume = false;
  if (!deps.options.getBool('DataExportEnabled')) data.dataExport = false;
  return data;
}

/**
 * Settle: the one charge of an answered request (or of one the upstream worked on for a client that left),
 * durable before the answer ends; marks the context settled.
 */
export async function settle(
  deps: RelayDeps,
  context: RelayContext,
  channel: RoutableChannel,
  upstreamModel: string,
  usage: Usage,
  firstTokenMs: number | null,
  endReason: ChargeEndReason,
): Promise<void> {
  const billed = billedUsage(context, usage);
  const data = buildCharge(deps, context, channel, upstreamModel, billed.usage, firstTokenMs, endReason);
  const bounding = boundCharge(deps, context, data, billed.capped);
  if (bounding) await bounding;
  try {
    await deps.settlement.settle({
      data,
      userRole: context.caller.user.role,
      clientIp: context.request.clientIp,
      reservedTokenId: context.reservedTokenId,
      reservation: context.reservation ?? undefined,
    });
    deps.admission.charged(context.request.requestId, data.quota);
  } catch (error) {
    if (context.reservation?.kind === 'block') deps.admission.keepHeld(context.request.requestId);
    // The append may have committed before it failed: releasing now could free quota that was charged. Keep the
    // reservation held; its lease runs out and the sweep retires it once the projections pass the ledger head.
    context.reserved = false;
    throw error;
  }
  context.settled = true;
  context.reserved = false;
}
