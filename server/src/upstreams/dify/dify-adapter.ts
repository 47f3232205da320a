import { mapUpstreamError, parseJsonObject, unreadableResponseError } from '../shared/map-upstream-error';
import type { OpenAIChatRequest } from '../shared/openai-chat-types';
import { convertedSuccess, type RelayMode, type UpstreamAdapter, type UpstreamSettings } from '../upstream-adapter';
import { UnsupportedRelayModeError } from '../upstream-errors';
import { buildDifyRequest, difyHeaders, difyTarget, difyUsage } from './dify-api';
import { DifyStreamTransformer } from './dify-stream-transformer';

/** Type 37: OpenAI chat in, a Dify app's /v1/chat-messages upstream, OpenAI chat out (docs/providers.md, Dify). */
export function createDifyAdapter(settings: UpstreamSettings): UpstreamAdapter {
  const relayModes = new Set<RelayMode>(['chat']);
  return {
    name: 'dify',
    relayModes,
    needsRemoteMedia: false,
    buildRequest(input) {
      if (!relayModes.has(input.relayMode)) throw new UnsupportedRelayModeError(input.relayMode, 'dify');
      const body = buildDifyRequest((input.body ?? {}) as OpenAIChatRequest, input.isStream);
      return { ...difyTarget(input), method: 'POST', headers: difyHeaders(input), body: JSON.stringify(body) };
    },
    parseResponse(input, response) {
      if (response.status < 200 || response.status >= 300) return mapUpstreamError(response.status, response.body);
      const parsed = parseJsonObject(response.body);
      if (!parsed) return unreadableResponseError('not a JSON object');
      const text = typeof parsed.answer === 'string' ? parsed.answer : '';
      const usage = difyUsage(parsed.metadata);
      return convertedSuccess(response.status, {
        body: {
          // new-api answered the conversation id, which a client can send back to Dify to continue the conversation.
          id:
            typeof parsed.conversation_id === 'string' && parsed.conversation_id !== ''
              ? parsed.conversation_id
              : `chatcmpl-${settings.newId()}`,
          object: 'chat.completion',
          created: typeof parsed.created_at === 'number' ? parsed.created_at : Math.floor(settings.now() / 1000),
          model: input.upstreamModel,
          choices: [{ index: 0, message: { role: 'assistant', content: text }, logprobs: null, finish_reason: 'stop' }],
          usage: usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
        },
        usage,
        text,
      });
    },
    createStreamTransformer(input) {
      return new DifyStreamTransformer(input, settings);
    },
    mapError: mapUpstreamError,
  };
}
