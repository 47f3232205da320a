import { createAnthropicAdapter } from '../anthropic/anthropic-adapter';
import { buildAnthropicRequest } from '../anthropic/build-anthropic-request';
import { inlineAnthropicImages } from '../anthropic/inline-anthropic-images';
import { buildGeminiRequest } from '../gemini/build-gemini-request';
import { createGeminiAdapter } from '../gemini/gemini-adapter';
import { buildOpenAICompatibleBody } from '../openai-compatible/build-openai-compatible-body';
import { genericCompatibleProfile } from '../openai-compatible/compatible-profiles';
import { createOpenAICompatibleAdapter } from '../openai-compatible/create-openai-compatible-adapter';
import { answerFromBytes } from '../shared/call-answer';
import { mapUpstreamError, parseJsonObject } from '../shared/map-upstream-error';
import type { OpenAIChatRequest } from '../shared/openai-chat-types';
import type { RelayMode, UpstreamAdapter, UpstreamRequestInput, UpstreamSettings } from '../upstream-adapter';
import { ConvertRequestError, UnsupportedRelayModeError } from '../upstream-errors';
import { parseServiceAccount, vertexRegion } from './vertex-credentials';
import { vertexHost, type VertexMode, vertexMode, vertexTarget } from './vertex-targets';
import { VertexTokenCache } from './vertex-token';

export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

function modeOf(input: UpstreamRequestInput): VertexMode {
  const mode = vertexMode(input.upstreamModel);
  if (!mode) throw new ConvertRequestError(`model ${input.upstreamModel} is not a Claude, Gemini or Llama model on Vertex AI`);
  return mode;
}

/** A refused token exchange: a bad or revoked key is OpenAI's 401 invalid_api_key (the health rules disable the channel). */
function tokenFailure(status: number, body: Buffer) {
  const parsed = parseJsonObject(body);
  const detail = [parsed?.error, parsed?.error_description].filter((part) => typeof part === 'string' && part).join(': ');
  const message = `Vertex AI access token exchange failed: ${detail || `status ${status}`}`;
  const auth = status === 400 || status === 401 || status === 403;
  const error = auth
    ? { message, type: 'authentication_error', param: null, code: 'invalid_api_key' }
    : { message, type: 'upstream_error', param: String(status), code: 'bad_response_status_code' };
  return answerFromBytes(auth ? 401 : status, 'application/json', JSON.stringify({ error }));
}

/**
 * Type 41: Vertex AI (docs/providers.md). Claude models through Anthropic's publisher (rawPredict), Gemini models
 * through Google's (generateContent), Llama through the OpenAI-compatible endpoint; bodies and answers through the
 * anthropic/, gemini/ and openai-compatible/ converters. Auth is a service-account OAuth token, fetched and cached
 * in `send`.
 */
export function createVertexAdapter(settings: UpstreamSettings): UpstreamAdapter {
  const relayModes = new Set<RelayMode>(['chat']);
  const claude = createAnthropicAdapter(settings);
  const gemini = createGeminiAdapter(settings);
  const openai = createOpenAICompatibleAdapter(genericCompatibleProfile, settings);
  const tokens = new VertexTokenCache(settings.now);
  const delegate = (input: UpstreamRequestInput) => {
    const mode = modeOf(input);
    return mode === 'claude' ? claude : mode === 'gemini' ? gemini : openai;
  };
  return {
    name: 'vertex',
    relayModes,
    // Gemini and Claude on Vertex cannot fetch arbitrary image URLs: the relay fetches them (Llama ignores them).
    needsRemoteMedia: true,
    buildRequest(input) {
      if (!relayModes.has(input.relayMode)) throw new UnsupportedRelayModeError(input.relayMode, 'vertex');
      const account = parseServiceAccount(input.channel.key);
      const mode = modeOf(input);
      const requested = typeof input.body?.model === 'string' ? input.body.model : input.upstreamModel;
      const region = vertexRegion(input.channel.other, [input.upstreamModel, requested]);
      const target = vertexTarget(
        mode,
        vertexHost(region, input.channel.baseUrl),
        account.projectId,
        region,
        input.upstreamModel,
        input.isStream,
      );
      const chat = (input.body ?? {}) as OpenAIChatRequest;
      let body: string | Uint8Array;
      if (mode === 'claude') {
        const { model: _model, ...rest } = buildAnthropicRequest(chat, input.upstreamModel, input.isStream);
        // Claude on Vertex takes base64 images only: the URLs the relay fetched are inlined.
        body = JSON.stringify({
          anthropic_version: VERTEX_ANTHROPIC_VERSION,
          ...rest,
          messages: inlineAnthropicImages(rest.messages, input.media),
        });
      } else if (mode === 'gemini') {
        body = JSON.stringify(buildGeminiRequest(chat, settings.geminiSafetyThreshold, input.media));
      } else {
        body = buildOpenAICompatibleBody(input, 'remove', null);
      }
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (input.isStream) headers.accept = 'text/event-stream';
      return { ...target, method: 'POST', headers, body };
    },
    async send(input, request, context) {
      const account = parseServiceAccount(input.channel.key);
      const token = await tokens.get(account, input.channel.baseUrl, context);
      if (!token.ok) return tokenFailure(token.status, token.body);
      return context.http({ ...request, headers: { ...request.headers, authorization: `Bearer ${token.token}` } });
    },
    parseResponse(input, response) {
      if (response.status < 200 || response.status >= 300) return mapUpstreamError(response.status, response.body);
      return delegate(input).parseResponse(input, response);
    },
    createStreamTransformer(input) {
      return delegate(input).createStreamTransformer(input);
    },
    mapError: mapUpstreamError,
  };
}
