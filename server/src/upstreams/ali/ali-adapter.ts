import { mapUpstreamError, parseJsonObject, unreadableResponseError } from '../shared/map-upstream-error';
import type { OpenAIChatRequest } from '../shared/openai-chat-types';
import { convertedSuccess, type JsonObject, type RelayMode, type UpstreamAdapter, type UpstreamSettings } from '../upstream-adapter';
import { UnsupportedRelayModeError } from '../upstream-errors';
import { ALI_CHAT_PATH, ALI_EMBEDDINGS_PATH, ALI_IMAGES_PATH, aliFailure, aliHeaders, aliTarget } from './ali-api';
import { buildAliEmbeddingRequest, convertAliEmbeddings } from './ali-embeddings';
import { buildAliImageRequest, completeAliImageTask, convertAliImages, DEFAULT_TASK_POLLING, type TaskPolling } from './ali-images';
import { AliStreamTransformer } from './ali-stream-transformer';
import { buildAliChatRequest, convertAliChat } from './convert-ali-chat';

/**
 * Type 17, Alibaba Qwen on DashScope: chat (text-generation, SSE with `X-DashScope-SSE`), embeddings and image
 * synthesis (an async task, polled on the channel's base URL). docs/providers.md, Alibaba.
 */
export function createAliAdapter(settings: UpstreamSettings, polling: TaskPolling = DEFAULT_TASK_POLLING): UpstreamAdapter {
  const relayModes = new Set<RelayMode>(['chat', 'embeddings', 'images-generations']);
  return {
    name: 'ali',
    relayModes,
    needsRemoteMedia: false,
    buildRequest(input) {
      const body = (input.body ?? {}) as JsonObject;
      let path: string;
      let upstreamBody: JsonObject;
      const extra: Record<string, string> = {};
      if (input.relayMode === 'chat') {
        path = ALI_CHAT_PATH;
        upstreamBody = buildAliChatRequest(body as unknown as OpenAIChatRequest, input.upstreamModel, input.isStream);
        if (input.isStream) Object.assign(extra, { 'x-dashscope-sse': 'enable', accept: 'text/event-stream' });
      } else if (input.relayMode === 'embeddings') {
        path = ALI_EMBEDDINGS_PATH;
        upstreamBody = buildAliEmbeddingRequest(body, input.upstreamModel);
      } else if (input.relayMode === 'images-generations') {
        path = ALI_IMAGES_PATH;
        upstreamBody = buildAliImageRequest(body, input.upstreamModel);
        extra['x-dashscope-async'] = 'enable';
      } else {
        throw new UnsupportedRelayModeError(input.relayMode, 'ali');
      }
      return { ...aliTarget(input, path), method: 'POST', headers: aliHeaders(input, extra), body: JSON.stringify(upstreamBody) };
    },
    async complete(input, response, call) {
      if (input.relayMode !== 'images-generations') return response;
      return completeAliImageTask(input, response, call, polling);
    },
    parseResponse(input, response) {
      const failure = aliFailure(response.status, response.body);
      if (failure) return failure;
      if (response.status < 200 || response.status >= 300) return mapUpstreamError(response.status, response.body);
      const parsed = parseJsonObject(response.body);
      if (!parsed) return unreadableResponseError('not a JSON object');
      if (input.relayMode === 'images-generations') {
        const body = convertAliImages(parsed, settings.now());
        return {
          ok: true,
          status: response.status,
          body: JSON.stringify(body),
          contentType: 'application/json',
          passthrough: false,
          usage: null,
          completionText: null,
        };
      }
      const converted =
        input.relayMode === 'embeddings'
          ? convertAliEmbeddings(parsed, input.upstreamModel, input.body?.encoding_format)
          : convertAliChat(parsed, input.upstreamModel, `chatcmpl-${settings.newId()}`, settings.now());
      return convertedSuccess(response.status, converted);
    },
    createStreamTransformer(input) {
      return new AliStreamTransformer(input, settings);
    },
    mapError(status, body) {
      return aliFailure(status, body) ?? mapUpstreamError(status, body);
    },
  };
}
