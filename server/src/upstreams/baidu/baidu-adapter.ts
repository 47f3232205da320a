import { mapUpstreamError, parseJsonObject, unreadableResponseError } from '../shared/map-upstream-error';
import type { OpenAIChatRequest } from '../shared/openai-chat-types';
import { channelBaseUrl, postRequest, splitBaseUrl, upstreamTarget } from '../shared/upstream-url';
import { convertedSuccess, type RelayMode, type UpstreamAdapter, type UpstreamSettings } from '../upstream-adapter';
import { UnsupportedRelayModeError, UpstreamLocalError } from '../upstream-errors';
import { baiduModelPath } from './baidu-endpoints';
import { baiduErrorOf, baiduFailure } from './baidu-errors';
import { BaiduStreamTransformer } from './baidu-stream-transformer';
import { BaiduTokenCache } from './baidu-token';
import { buildBaiduChatRequest, buildBaiduEmbeddingRequest, convertBaiduChat, convertBaiduEmbeddings } from './convert-baidu';

const DEFAULT_BASE_URL = 'https://aip.baidubce.com';

/**
 * Type 15, Baidu Wenxin (ERNIE): OpenAI chat and embeddings in, Wenxin's own API out (docs/providers.md, Baidu). The
 * access token comes from `prepare` (the OAuth exchange, cached per key) and goes in `?access_token=`.
 */
export function createBaiduAdapter(settings: UpstreamSettings): UpstreamAdapter {
  const relayModes = new Set<RelayMode>(['chat', 'embeddings']);
  const tokens = new BaiduTokenCache(settings.now);
  const baseUrl = (input: { channel: { baseUrl: string | null } }) => channelBaseUrl(input.channel.baseUrl, DEFAULT_BASE_URL, 'baidu');
  return {
    name: 'baidu',
    relayModes,
    needsRemoteMedia: false,
    async prepare(input, call) {
      if (!relayModes.has(input.relayMode)) throw new UnsupportedRelayModeError(input.relayMode, 'baidu');
      return { ...input, credential: await tokens.token(input.channel.key, baseUrl(input), call) };
    },
    buildRequest(input) {
      if (!relayModes.has(input.relayMode)) throw new UnsupportedRelayModeError(input.relayMode, 'baidu');
      if (!input.credential) throw new UpstreamLocalError('the baidu access token is missing', 'get_access_token_failed', 500);
      const body =
        input.relayMode === 'embeddings'
          ? buildBaiduEmbeddingRequest(input.body ?? {})
          : buildBaiduChatRequest((input.body ?? {}) as unknown as OpenAIChatRequest);
      const path = `${baiduModelPath(input.upstreamModel)}?access_token=${encodeURIComponent(input.credential)}`;
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (input.isStream) headers.accept = 'text/event-stream';
      return postRequest(upstreamTarget(splitBaseUrl(baseUrl(input)), path), headers, JSON.stringify(body));
    },
    parseResponse(input, response) {
      const parsed = parseJsonObject(response.body);
      const error = parsed && baiduErrorOf(parsed);
      if (error) {
        const failure = baiduFailure(response.status, error);
        if (failure.status === 401) tokens.forget(input.channel.key);
        return failure;
      }
      if (response.status < 200 || response.status >= 300) return mapUpstreamError(response.status, response.body);
      if (!parsed) return unreadableResponseError('not a JSON object');
      const converted =
        input.relayMode === 'embeddings'
          ? convertBaiduEmbeddings(parsed, input.upstreamModel, input.body?.encoding_format)
          : convertBaiduChat(parsed, input.upstreamModel, `chatcmpl-${settings.newId()}`, settings.now());
      return convertedSuccess(response.status, converted);
    },
    createStreamTransformer(input) {
      return new BaiduStreamTransformer(input, settings, () => tokens.forget(input.channel.key));
    },
    mapError(status, body) {
      const parsed = parseJsonObject(body);
      const error = parsed && baiduErrorOf(parsed);
      return error ? baiduFailure(status, error) : mapUpstreamError(status, body);
    },
  };
}
