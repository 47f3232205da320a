import { type QuotaConsumedData, quotaConsumedData } from '#server/modules/accounts/index';

/** A relay charge as the pipeline builds it (a gpt-3.5-turbo chat, 12 + 7 tokens), for the settlement specs. */
export function quotaConsumedFixture(requestId: string, userId: number, overrides: Partial<QuotaConsumedData> = {}): QuotaConsumedData {
  return {
    requestId,
    userId,
    username: `u${userId}`,
    tokenId: 0,
    tokenName: 't',
    group: 'default',
    modelName: 'gpt-3.5-turbo',
    upstreamModel: 'gpt-3.5-turbo',
    channelId: 1,
    channelName: 'c',
    channelPath: [1],
    relayMode: 'chat',
    promptTokens: 12,
    completionTokens: 7,
    cachedTokens: 0,
    modelRatio: 0.25,
    completionRatio: 3,
    groupRatio: 1,
    modelPrice: -1,
    quota: 8,
    tokenUnlimited: true,
    isStream: false,
    useTimeSeconds: 0,
    firstTokenMs: 0,
    createdAt: Math.floor(Date.now() / 1000),
    ...overrides,
  };
}

/**
 * A relay charge as the benchmark's requests make them (gpt-4o-mini, 12 + 20 tokens, the names `npm run bench` gives
 * its token and channel, answered whole by the upstream), admitted at `at` (ms): the codec specs, the log column specs
 * and the storage-shapes bench measure this shape.
 */
export function benchChargeFixture(
  requestId: string,
  userId: number,
  at: number,
  overrides: Partial<QuotaConsumedData> = {},
): QuotaConsumedData {
  return {
    requestId,
    userId,
    username: 'root',
    tokenId: 1,
    tokenName: 'bench-51853989',
    group: 'default',
    modelName: 'gpt-4o-mini',
    upstreamModel: 'gpt-4o-mini',
    channelId: 1,
    channelName: 'bench-fake-upstream',
    channelPath: [1],
    relayMode: 'chat',
    promptTokens: 12,
    completionTokens: 20,
    cachedTokens: 0,
    modelRatio: 0.075,
    completionRatio: 4,
    groupRatio: 1,
    modelPrice: -1,
    quota: 7,
    tokenUnlimited: false,
    isStream: false,
    useTimeSeconds: 0,
    firstTokenMs: 0,
    createdAt: Math.floor(at / 1000),
    usageSource: 'upstream',
    endReason: 'completed',
    ...overrides,
  };
}

/** A `events` row of a QuotaConsumed (event_id, stream_id, data) decoded by the product's codec, whichever shape it has. */
export function chargeOfRow(row: { event_id: string; stream_id: string; data: unknown; metadata?: unknown }): QuotaConsumedData {
  return quotaConsumedData({ id: row.event_id, streamId: row.stream_id, data: row.data, metadata: row.metadata });
}
