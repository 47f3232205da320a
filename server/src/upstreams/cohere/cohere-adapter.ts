import { mapUpstreamError, parseJsonObject, unreadableResponseError } from '../shared/map-upstream-error';
import type { OpenAIChatRequest } from '../shared/openai-chat-types';
import { convertedSuccess, type RelayMode, type UpstreamAdapter, type UpstreamSettings } from '../upstream-adapter';
import { ConvertRequestError, UnsupportedRelayModeError } from '../upstream-errors';
import { buildCohereChatRequest, cohereHeaders, cohereTarget } from './cohere-api';
import { postRequest } from '../shared/upstream-url';
import { CohereStreamTransformer } from './cohere-stream-transformer';
import { convertCohereChat, convertCohereRerank } from './convert-cohere-response';

function rerankBody(body: Record<string, unknown>, upstreamModel: string): Record<string, unknown> {
  if (!Array.isArray(body.documents) || body.documents.length === 0) throw new ConvertRequestError('field documents is required');
  const out: Record<string, unknown> = {
    model: upstreamModel,
    query: body.query,
    documents: body.documents,
    return_documents: typeof body.return_documents === 'boolean' ? body.return_documents : true,
  };
  if (typeof body.top_n === 'number' && body.top_n > 0) out.top_n = body.top_n;
  return out;
}

/** Type 34: OpenAI chat in, Cohere v1 chat upstream; rerank to Cohere's /v1/rerank (docs/providers.md, Cohere). */
export function createCohereAdapter(settings: UpstreamSettings): UpstreamAdapter {
  const relayModes = new Set<RelayMode>(['chat', 'rerank']);
  return {
    name: 'cohere',
    relayModes,
    needsRemoteMedia: false,
    buildRequest(input) {
      if (!relayModes.has(input.relayMode)) throw new UnsupportedRelayModeError(input.relayMode, 'cohere');
      const body = input.body ?? {};
      if (input.relayMode === 'rerank') {
        return postRequest(cohereTarget(input, '/v1/rerank'), cohereHeaders(input), JSON.stringify(rerankBody(body, input.upstreamModel)));
      }
      const request = buildCohereChatRequest(body as OpenAIChatRequest, input.upstreamModel, input.isStream);
      return postRequest(cohereTarget(input, '/v1/chat'), cohereHeaders(input), JSON.stringify(request));
    },
    parseResponse(input, response) {
      if (response.status < 200 || response.status >= 300) return mapUpstreamError(response.status, response.body);
      const parsed = parseJsonObject(response.body);
      if (!parsed) return unreadableResponseError('not a JSON object');
      if (input.relayMode === 'rerank') {
        const { body, usage } = convertCohereRerank(parsed, input.upstreamModel);
        return convertedSuccess(response.status, { body, usage, text: '' });
      }
      const converted = convertCohereChat(parsed, {
        id: `chatcmpl-${settings.newId()}`,
        created: Math.floor(settings.now() / 1000),
        model: input.upstreamModel,
      });
      if (!('body' in converted)) return { ok: false, status: response.status, error: converted };
      return convertedSuccess(response.status, converted);
    },
    createStreamTransformer(input) {
      return new CohereStreamTransformer(input, settings);
    },
    mapError: mapUpstreamError,
  };
}
