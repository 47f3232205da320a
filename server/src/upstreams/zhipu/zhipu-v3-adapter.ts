import { mapUpstreamError, parseJsonObject, unreadableResponseError } from '../shared/map-upstream-error';
import type { OpenAIChatRequest } from '../shared/openai-chat-types';
import { channelBaseUrl, postRequest, splitBaseUrl, upstreamTarget } from '../shared/upstream-url';
import { convertedSuccess, type RelayMode, type UpstreamAdapter, type UpstreamSettings } from '../upstream-adapter';
import { UnsupportedRelayModeError } from '../upstream-errors';
import { ZhipuTokenCache } from './zhipu-jwt';
import { buildZhipuV3Request, convertZhipuV3Answer, readZhipuV3Answer, zhipuV3Failure } from './zhipu-v3-api';
import { ZhipuV3StreamTransformer } from './zhipu-v3-stream-transformer';

/**
 * Type 16, Zhipu ChatGLM on the v3 API: `/api/paas/v3/model-api/{model}/invoke` (or `/sse-invoke` for streams) on the
 * channel's base URL, the Zhipu JWT in `Authorization` (no Bearer). docs/providers.md, Zhipu.
 */
export function createZhipuV3Adapter(settings: UpstreamSettings): UpstreamAdapter {
  const relayModes = new Set<RelayMode>(['chat']);
  const tokens = new ZhipuTokenCache(settings.now);
  return {
    name: 'zhipu',
    relayModes,
    needsRemoteMedia: false,
    buildRequest(input) {
      if (!relayModes.has(input.relayMode)) throw new UnsupportedRelayModeError(input.relayMode, 'zhipu');
      const base = splitBaseUrl(channelBaseUrl(input.channel.baseUrl, 'https://open.bigmodel.cn', 'zhipu'));
      const path = `/api/paas/v3/model-api/${encodeURIComponent(input.upstreamModel)}/${input.isStream ? 'sse-invoke' : 'invoke'}`;
      const headers: Record<string, string> = { 'content-type': 'application/json', authorization: tokens.token(input.channel.key) };
      if (input.isStream) headers.accept = 'text/event-stream';
      const body = buildZhipuV3Request((input.body ?? {}) as unknown as OpenAIChatRequest);
      return postRequest(upstreamTarget(base, path), headers, JSON.stringify(body));
    },
    parseResponse(input, response) {
      const answer = readZhipuV3Answer(response.body, response.status);
      if (answer && 'failure' in answer) return answer.failure;
      if (response.status < 200 || response.status >= 300) return mapUpstreamError(response.status, response.body);
      if (!answer) return unreadableResponseError('not a ChatGLM answer');
      return convertedSuccess(
        response.status,
        convertZhipuV3Answer(answer.data, input.upstreamModel, `chatcmpl-${settings.newId()}`, settings.now()),
      );
    },
    createStreamTransformer(input) {
      return new ZhipuV3StreamTransformer(input, settings);
    },
    mapError(status, body) {
      const parsed = parseJsonObject(body);
      return parsed && parsed.success === false ? zhipuV3Failure(status, parsed) : mapUpstreamError(status, body);
    },
  };
}
