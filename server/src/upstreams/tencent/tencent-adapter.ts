import type { Json } from '../shared/converted-text-stream';
import { mapUpstreamError, parseJsonObject, unreadableResponseError } from '../shared/map-upstream-error';
import type { OpenAIChatRequest } from '../shared/openai-chat-types';
import { convertedSuccess, type RelayMode, type UpstreamAdapter, type UpstreamSettings } from '../upstream-adapter';
import { UnsupportedRelayModeError } from '../upstream-errors';
import {
  buildTencentHttpRequest,
  buildTencentRequest,
  mapTencentFinishReason,
  tencentError,
  tencentFailure,
  tencentUsage,
} from './tencent-api';
import { TencentStreamTransformer } from './tencent-stream-transformer';

/** Type 23: OpenAI chat in, Hunyuan's TC3-signed ChatCompletions upstream, OpenAI chat out (docs/providers.md, Tencent). */
export function createTencentAdapter(settings: UpstreamSettings): UpstreamAdapter {
  const relayModes = new Set<RelayMode>(['chat']);
  const mapError = (status: number, body: Uint8Array) => {
    const parsed = parseJsonObject(body);
    const error = parsed && tencentError(parsed);
    return error ? { ok: false as const, status, error } : mapUpstreamError(status, body);
  };
  return {
    name: 'tencent',
    relayModes,
    needsRemoteMedia: false,
    buildRequest(input) {
      if (!relayModes.has(input.relayMode)) throw new UnsupportedRelayModeError(input.relayMode, 'tencent');
      const body = JSON.stringify(buildTencentRequest((input.body ?? {}) as OpenAIChatRequest, input.upstreamModel, input.isStream));
      return buildTencentHttpRequest(input, body, settings);
    },
    parseResponse(input, response) {
      if (response.status < 200 || response.status >= 300) return mapError(response.status, response.body);
      const parsed = parseJsonObject(response.body);
      if (!parsed) return unreadableResponseError('not a JSON object');
      const error = tencentError(parsed);
      if (error) return tencentFailure(error);
      const answer = (parsed.Response ?? parsed) as Json;
      const choices = Array.isArray(answer.Choices) ? (answer.Choices as Json[]) : [];
      let text = '';
      const converted = choices.map((choice, index) => {
        const content = typeof choice.Message?.Content === 'string' ? (choice.Message.Content as string) : '';
        text += content;
        return {
          index,
          message: { role: 'assistant', content },
          logprobs: null,
          finish_reason: mapTencentFinishReason(choice.FinishReason) ?? 'stop',
        };
      });
      const usage = tencentUsage(answer.Usage);
      return convertedSuccess(response.status, {
        body: {
          id: `chatcmpl-${typeof answer.Id === 'string' ? answer.Id : settings.newId()}`,
          object: 'chat.completion',
          created: typeof answer.Created === 'number' ? answer.Created : Math.floor(settings.now() / 1000),
          model: input.upstreamModel,
          choices: converted,
          usage: usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        },
        usage,
        text,
      });
    },
    createStreamTransformer(input) {
      return new TencentStreamTransformer(input, settings);
    },
    refusedStream(_input, response) {
      const parsed = parseJsonObject(response.body);
      const error = parsed && tencentError(parsed);
      return error ? tencentFailure(error) : null;
    },
    mapError,
  };
}
