import { CHANNEL_TEST_LOG_TEXT, type ChannelTestLoggedData } from '#server/modules/logs/logs.events';
import type { QuotaConsumedData } from '#server/modules/accounts/index';
import { type ConsumeLogRow, consumeLogRow } from './consume-log-row';

const id = (value: unknown) => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0);

/**
 * The type 2 row of a ChannelTestLogged, as new-api logs a channel test (uncharged): a consume log for user 1
 * with token name and content "模型测试", token id 0, not streamed, the would-be quota at group ratio 1, and the
 * consume row's `other` JSON (ratios, price, frt -1000, admin_info.use_channel = the tested channel). Built by the
 * same code as a relay charge's row, so the columns are cleaned and cut the same way.
 */
export function channelTestLogRow(data: Partial<ChannelTestLoggedData>, ledgerTime: Date): ConsumeLogRow {
  return consumeLogRow(id(data.userId), channelTestConsumed(data), ledgerTime);
}

/** The charge-shaped facts of a channel test, as channelTestLogRow words them (also the row's consume columns). */
export function channelTestConsumed(data: Partial<ChannelTestLoggedData>): Partial<QuotaConsumedData> {
  const channelId = id(data.channelId);
  return {
    createdAt: data.createdAt,
    content: CHANNEL_TEST_LOG_TEXT,
    tokenName: CHANNEL_TEST_LOG_TEXT,
    tokenId: 0,
    username: data.username,
    modelName: data.modelName,
    upstreamModel: data.upstreamModel,
    quota: data.quota,
    promptTokens: data.promptTokens,
    completionTokens: data.completionTokens,
    cachedTokens: 0,
    useTimeSeconds: data.useTimeSeconds,
    isStream: false,
    channelId,
    channelPath: channelId ? [channelId] : [],
    group: '',
    modelRatio: data.modelRatio,
    completionRatio: data.completionRatio,
    groupRatio: 1,
    modelPrice: data.modelPrice,
    other: {},
  };
}
