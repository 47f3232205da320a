import { mapUpstreamError, parseJsonObject } from '../shared/map-upstream-error';
import type { CompatibleProfile } from '../openai-compatible/compatible-profile';
import { createOpenAICompatibleAdapter } from '../openai-compatible/create-openai-compatible-adapter';
import { splitBaseUrl, upstreamTarget } from '../shared/upstream-url';
import type { RelayMode, UpstreamAdapter, UpstreamSettings } from '../upstream-adapter';
import { miniMaxError, miniMaxFailure } from './minimax-errors';
import { MiniMaxStreamTransformer } from './minimax-stream-transformer';

export const MINIMAX_BASE_URL = 'https://api.minimax.chat';

/** MiniMax's v2 chat API is OpenAI's chat format on one path. */
const profile: CompatibleProfile = {
  name: 'minimax',
  defaultBaseUrl: MINIMAX_BASE_URL,
  relayModes: new Set<RelayMode>(['chat']),
  streamUsage: 'remove',
  target: (_input, baseUrl) => upstreamTarget(splitBaseUrl(baseUrl), '/v1/text/chatcompletion_v2'),
};

/**
 * Type 35, MiniMax (docs/providers.md, MiniMax): chat to /v1/text/chatcompletion_v2 with OpenAI's body and answer,
 * plus MiniMax's HTTP-200 `base_resp` errors.
 */
export function createMiniMaxAdapter(settings: UpstreamSettings): UpstreamAdapter {
  const compatible = createOpenAICompatibleAdapter(profile, settings);
  const mapError = (status: number, body: Uint8Array) => {
    const parsed = parseJsonObject(body);
    const error = parsed && miniMaxError(parsed);
    return error ? { ok: false as const, status, error } : mapUpstreamError(status, body);
  };
  return {
    ...compatible,
    parseResponse(input, response) {
      if (response.status < 200 || response.status >= 300) return mapError(response.status, response.body);
      const parsed = parseJsonObject(response.body);
      const error = parsed && miniMaxError(parsed);
      if (error) return miniMaxFailure(error);
      return compatible.parseResponse(input, response);
    },
    createStreamTransformer(input) {
      return new MiniMaxStreamTransformer(compatible.createStreamTransformer(input), input, settings);
    },
    refusedStream(_input, response) {
      const parsed = parseJsonObject(response.body);
      const error = parsed && miniMaxError(parsed);
      return error ? miniMaxFailure(error) : null;
    },
    mapError,
  };
}
