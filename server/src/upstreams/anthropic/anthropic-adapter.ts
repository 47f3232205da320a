import { mapUpstreamError, openAIErrorFromObject, parseJsonObject, unreadableResponseError } from '../shared/map-upstream-error';
import type { OpenAIChatRequest } from '../shared/openai-chat-types';
import { convertedSuccess, type RelayMode, type UpstreamAdapter, type UpstreamSettings } from '../upstream-adapter';
import { UnsupportedRelayModeError } from '../upstream-errors';
import { anthropicHeaders, anthropicTarget } from './anthropic-api';
import { AnthropicStreamTransformer } from './anthropic-stream-transformer';
import type { AnthropicResponse } from './anthropic-types';
import { buildAnthropicRequest } from './build-anthropic-request';
import { convertAnthropicResponse } from './convert-anthropic-response';

/** Type 14: OpenAI chat in, Claude Messages upstream, OpenAI chat out (docs/providers.md, Anthropic). */
export function createAnthropicAdapter(settings: UpstreamSettings): UpstreamAdapter {
  const relayModes = new Set<RelayMode>(['chat']);
  return {
    name: 'anthropic',
    relayModes,
    needsRemoteMedia: false,
    buildRequest(input) {
      if (!relayModes.has(input.relayMode)) throw new UnsupportedRelayModeError(input.relayMode, 'anthropic');
      const request = buildAnthropicRequest((input.body ?? {}) as OpenAIChatRequest, input.upstreamModel, input.isStream);
      return { ...anthropicTarget(input), method: 'POST', headers: anthropicHeaders(input), body: JSON.stringify(request) };
    },
    parseResponse(_input, response) {
      if (response.status < 200 || response.status >= 300) return mapUpstreamError(response.status, response.body);
      const parsed = parseJsonObject(response.body);
      if (!parsed) return unreadableResponseError('not a JSON object');
      // Claude can answer 200 with {"type":"error"}: an error with that status, not retried, as in new-api.
      if (parsed.type === 'error' && typeof parsed.error === 'object' && parsed.error !== null) {
        const error = openAIErrorFromObject(parsed.error as Record<string, unknown>);
        return { ok: false, status: response.status, error: { ...error, code: error.type } };
      }
      const converted = convertAnthropicResponse(parsed as unknown as AnthropicResponse, Math.floor(settings.now() / 1000));
      return convertedSuccess(response.status, converted);
    },
    createStreamTransformer(input) {
      return new AnthropicStreamTransformer(input, settings);
    },
    mapError: mapUpstreamError,
  };
}
