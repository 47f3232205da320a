import { createOpenAICompatibleAdapter, openAIRequestHeaders } from '../openai-compatible/create-openai-compatible-adapter';
import type { CompatibleProfile } from '../openai-compatible/compatible-profile';
import { mapUpstreamError, parseJsonObject, unreadableResponseError } from '../shared/map-upstream-error';
import { channelBaseUrl, postRequest, splitBaseUrl, upstreamTarget } from '../shared/upstream-url';
import type { RelayMode, UpstreamAdapter, UpstreamSettings } from '../upstream-adapter';
import { convertOllamaEmbedResponse, type OllamaEmbedResponse } from './convert-ollama-embed-response';
import { convertToOllamaEmbedRequest } from './convert-to-ollama-embed-request';

export const OLLAMA_BASE_URL = 'http://localhost:11434';

/**
 * Type 4. Chat and completions use Ollama's OpenAI-compatible API on the client's path, with every field
 * forwarded (new-api rebuilt the body and dropped max_tokens). Ollama honours
 * stream_options.include_usage, so stream usage is asked for. The key is ignored: Ollama has no auth.
 */
export const ollamaProfile: CompatibleProfile = {
  name: 'ollama',
  defaultBaseUrl: OLLAMA_BASE_URL,
  relayModes: new Set<RelayMode>(['chat', 'completions', 'embeddings']),
  streamUsage: 'force',
  authHeaders: () => ({}),
};

export function createOllamaAdapter(settings: UpstreamSettings): UpstreamAdapter {
  const compatible = createOpenAICompatibleAdapter(ollamaProfile, settings);
  return {
    ...compatible,
    buildRequest(input) {
      if (input.relayMode !== 'embeddings') return compatible.buildRequest(input);
      const baseUrl = channelBaseUrl(input.channel.baseUrl, OLLAMA_BASE_URL, ollamaProfile.name);
      return postRequest(
        upstreamTarget(splitBaseUrl(baseUrl), '/api/embed'),
        openAIRequestHeaders(input, 'application/json', {}),
        JSON.stringify(convertToOllamaEmbedRequest(input.body ?? {}, input.upstreamModel)),
      );
    },
    parseResponse(input, response) {
      if (input.relayMode !== 'embeddings') return compatible.parseResponse(input, response);
      if (response.status < 200 || response.status >= 300) return mapUpstreamError(response.status, response.body);
      const parsed = parseJsonObject(response.body) as OllamaEmbedResponse | null;
      if (!parsed) return unreadableResponseError('not a JSON object');
      const { body, usage } = convertOllamaEmbedResponse(parsed, input.upstreamModel, input.body?.encoding_format);
      return {
        ok: true,
        status: 200,
        body: JSON.stringify(body),
        contentType: 'application/json',
        passthrough: false,
        usage,
        completionText: null,
      };
    },
  };
}
