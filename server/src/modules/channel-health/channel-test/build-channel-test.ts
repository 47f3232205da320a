import { DomainError } from '#server/common/http/errors';
import type { ModelPricing } from '../../pricing';
import type { UpstreamChannel, UpstreamRequestInput } from '#server/upstreams/upstream-adapter';

/**
 * new-api's channel test as pure functions: which model, which request, and how
 * to read the result. The I/O (send through the channel's adapter, time it) lives in the test-channel handler.
 */

export interface TestableChannel extends UpstreamChannel {
  id: number;
  models: string[];
  testModel: string | null;
  modelMapping: Record<string, string>;
}

export class ChannelTestNotSupportedError extends DomainError {
  constructor(kind: 'midjourney' | 'suno') {
    super(`${kind} channel test is not supported`, 'channel_test_not_supported');
  }
}

/** new-api refuses MJ (2) and Suno (36); MJ Plus (5) cannot chat either, so it is refused too (a fix). */
export function assertTestable(type: number): void {
  if (type === 2 || type === 5) throw new ChannelTestNotSupportedError('midjourney');
  if (type === 36) throw new ChannelTestNotSupportedError('suno');
}

/**
 * `?model=` if given (the channel's model mapping applies), else the channel's test_model, else its first
 * model, else gpt-3.5-turbo (no mapping in those cases, as in new-api).
 */
export function chooseTestModel(
  channel: Pick<TestableChannel, 'models' | 'testModel' | 'modelMapping'>,
  requested: string | undefined,
): { model: string; upstreamModel: string } {
  const asked = (requested ?? '').trim();
  if (asked) {
    const mapped = channel.modelMapping[asked];
    return { model: asked, upstreamModel: typeof mapped === 'string' && mapped !== '' ? mapped : asked };
  }
  const fallback = (channel.testModel ?? '').trim() || channel.models.find((model) => model.trim() !== '')?.trim() || 'gpt-3.5-turbo';
  return { model: fallback, upstreamModel: fallback };
}

/** `{"model":M,"messages":[{"role":"user","content":"hi"}],"max_tokens":1}` (max_completion_tokens for o1-*), non-stream. */
export function channelTestInput(channel: TestableChannel, upstreamModel: string): UpstreamRequestInput {
  const body: Record<string, unknown> = { model: upstreamModel, messages: [{ role: 'user', content: 'hi' }] };
  if (upstreamModel.startsWith('o1-')) body.max_completion_tokens = 1;
  else body.max_tokens = 1;
  return {
    channel: {
      type: channel.type,
      key: channel.key,
      baseUrl: channel.baseUrl,
      other: channel.other,
      openaiOrganization: channel.openaiOrganization,
    },
    relayMode: 'chat',
    path: '/v1/chat/completions',
    query: '',
    body,
    upstreamModel,
    isStream: false,
    clientWantsUsage: false,
  };
}

/** Seconds as the API answers them (`time`), from wall-clock milliseconds. */
export function testSeconds(elapsedMs: number): number {
  return elapsedMs / 1000;
}

/**
 * The quota new-api writes on a channel test's log row: the relay's formula at
 * group ratio 1, never deducted. Price mode: trunc(price × QuotaPerUnit). Ratio mode: (prompt +
 * round(completion × completionRatio)) × modelRatio, rounded, and at least 1 when the ratio is not 0.
 */
export function channelTestQuota(
  pricing: Pick<ModelPricing, 'modelPrice' | 'modelRatio' | 'completionRatio'>,
  usage: { promptTokens: number; completionTokens: number },
  quotaPerUnit: number,
): number {
  if (pricing.modelPrice >= 0) return Math.trunc(pricing.modelPrice * quotaPerUnit);
  const tokens = usage.promptTokens + Math.round(usage.completionTokens * pricing.completionRatio);
  const quota = Math.round(tokens * pricing.modelRatio);
  if (pricing.modelRatio !== 0 && quota <= 0) return 1;
  return quota;
}
