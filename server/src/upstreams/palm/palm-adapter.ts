import { parseJsonObject, unreadableResponseError } from '../shared/map-upstream-error';
import type { OpenAIChatRequest } from '../shared/openai-chat-types';
import { convertedSuccess, type RelayMode, type UpstreamAdapter, type UpstreamSettings } from '../upstream-adapter';
import { UnsupportedRelayModeError } from '../upstream-errors';
import { buildPalmRequest, convertPalmResponse, mapPalmError, palmNoCandidates, palmRequest } from './palm-api';
import { PalmStreamTransformer } from './palm-stream-transformer';

/** Type 11: OpenAI chat in, PaLM 2's generateMessage upstream, OpenAI chat out (docs/providers.md, PaLM). */
export function createPalmAdapter(settings: UpstreamSettings): UpstreamAdapter {
  const relayModes = new Set<RelayMode>(['chat']);
  return {
    name: 'palm',
    relayModes,
    needsRemoteMedia: false,
    buildRequest(input) {
      if (!relayModes.has(input.relayMode)) throw new UnsupportedRelayModeError(input.relayMode, 'palm');
      return palmRequest(input, JSON.stringify(buildPalmRequest((input.body ?? {}) as OpenAIChatRequest)));
    },
    parseResponse(input, response) {
      if (response.status < 200 || response.status >= 300) return mapPalmError(response.status, response.body);
      const parsed = parseJsonObject(response.body);
      if (!parsed) return unreadableResponseError('not a JSON object');
      if (!Array.isArray(parsed.candidates) || parsed.candidates.length === 0)
        return { ok: false, status: response.status, error: palmNoCandidates(parsed) };
      const identity = { id: `chatcmpl-${settings.newId()}`, created: Math.floor(settings.now() / 1000), model: input.upstreamModel };
      return convertedSuccess(response.status, convertPalmResponse(parsed, identity));
    },
    createStreamTransformer(input) {
      return new PalmStreamTransformer(input, settings);
    },
    mapError: mapPalmError,
  };
}
