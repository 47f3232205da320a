import { mapUpstreamError, parseJsonObject, unreadableResponseError } from '../shared/map-upstream-error';
import type { OpenAIChatRequest } from '../shared/openai-chat-types';
import { convertedSuccess, type RelayMode, type UpstreamAdapter, type UpstreamSettings } from '../upstream-adapter';
import { UnsupportedRelayModeError } from '../upstream-errors';
import { buildGeminiRequest } from './build-gemini-request';
import { convertGeminiResponse, noCandidatesError } from './convert-gemini-response';
import { geminiHeaders, geminiTarget } from './gemini-api';
import { GeminiStreamTransformer } from './gemini-stream-transformer';
import type { GeminiResponse } from './gemini-types';

/** Type 24: OpenAI chat in, Gemini generateContent upstream, OpenAI chat out (docs/providers.md, Gemini). */
export function createGeminiAdapter(settings: UpstreamSettings): UpstreamAdapter {
  const relayModes = new Set<RelayMode>(['chat']);
  return {
    name: 'gemini',
    relayModes,
    needsRemoteMedia: true,
    buildRequest(input) {
      if (!relayModes.has(input.relayMode)) throw new UnsupportedRelayModeError(input.relayMode, 'gemini');
      const request = buildGeminiRequest((input.body ?? {}) as OpenAIChatRequest, settings.geminiSafetyThreshold, input.media);
      return { ...geminiTarget(input), method: 'POST', headers: geminiHeaders(input), body: JSON.stringify(request) };
    },
    parseResponse(input, response) {
      if (response.status < 200 || response.status >= 300) return mapUpstreamError(response.status, response.body);
      const parsed = parseJsonObject(response.body) as GeminiResponse | null;
      if (!parsed) return unreadableResponseError('not a JSON object');
      // Status kept as new-api keeps it: a 200 with no candidates is an error the relay does not retry.
      if (!parsed.candidates || parsed.candidates.length === 0)
        return { ok: false, status: response.status, error: noCandidatesError(parsed) };
      const converted = convertGeminiResponse(
        parsed,
        {
          id: `chatcmpl-${parsed.responseId ?? settings.newId()}`,
          created: Math.floor(settings.now() / 1000),
          model: input.upstreamModel,
        },
        settings.newId,
      );
      return convertedSuccess(response.status, converted);
    },
    createStreamTransformer(input) {
      return new GeminiStreamTransformer(input, settings);
    },
    mapError: mapUpstreamError,
  };
}
