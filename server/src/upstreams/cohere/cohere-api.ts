import type { Json } from '../shared/converted-text-stream';
import { maxOutputTokens, type OpenAIChatRequest, stopSequences, textOfContent } from '../shared/openai-chat-types';
import { makeUsage } from '../shared/normalize-usage';
import { channelBaseUrl, splitBaseUrl, upstreamTarget } from '../shared/upstream-url';
import type { TokenUsage, UpstreamRequest, UpstreamRequestInput } from '../upstream-adapter';

export const COHERE_BASE_URL = 'https://api.cohere.ai';
/** Cohere requires no max_tokens, but new-api always sent one: 4000 when the client sent none. */
export const COHERE_DEFAULT_MAX_TOKENS = 4000;

export function cohereTarget(input: UpstreamRequestInput, path: string): Pick<UpstreamRequest, 'origin' | 'path' | 'url'> {
  return upstreamTarget(splitBaseUrl(channelBaseUrl(input.channel.baseUrl, COHERE_BASE_URL, 'cohere')), path);
}

export function cohereHeaders(input: UpstreamRequestInput): Record<string, string> {
  return { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${input.channel.key}` };
}

type CohereRole = 'USER' | 'CHATBOT' | 'SYSTEM';

function cohereRole(role: string): CohereRole {
  if (role === 'assistant') return 'CHATBOT';
  if (role === 'system' || role === 'developer') return 'SYSTEM';
  return 'USER';
}

/**
 * An OpenAI chat request → Cohere's v1 chat (https://docs.cohere.com/v1/reference/chat): the last user message is
 * `message`, every message before it goes to `chat_history` in order. new-api dropped the earlier user turns.
 */
export function buildCohereChatRequest(request: OpenAIChatRequest, upstreamModel: string, isStream: boolean): Record<string, unknown> {
  const messages = request.messages ?? [];
  let last = -1;
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index].role === 'user') {
      last = index;
      break;
    }
  }
  const history = messages
    .filter((_message, index) => index !== last)
    .map((message) => ({ role: cohereRole(message.role), message: textOfContent(message.content) }))
    .filter((entry) => entry.message !== '');
  const out: Record<string, unknown> = {
    model: upstreamModel,
    message: last === -1 ? '' : textOfContent(messages[last].content),
    max_tokens: maxOutputTokens(request) ?? COHERE_DEFAULT_MAX_TOKENS,
  };
  if (history.length > 0) out.chat_history = history;
  if (isStream) out.stream = true;
  if (typeof request.temperature === 'number') out.temperature = request.temperature;
  if (typeof request.top_p === 'number') out.p = request.top_p;
  if (typeof request.top_k === 'number') out.k = request.top_k;
  if (typeof request.seed === 'number') out.seed = request.seed;
  if (typeof request.frequency_penalty === 'number') out.frequency_penalty = request.frequency_penalty;
  if (typeof request.presence_penalty === 'number') out.presence_penalty = request.presence_penalty;
  const stop = stopSequences(request.stop);
  if (stop.length > 0) out.stop_sequences = stop;
  if (typeof request.safety_mode === 'string' && request.safety_mode !== '' && request.safety_mode !== 'NONE')
    out.safety_mode = request.safety_mode;
  return out;
}

/** `meta.billed_units` (or `meta.tokens`): what Cohere bills. */
export function cohereUsage(meta: unknown): TokenUsage | null {
  if (typeof meta !== 'object' || meta === null) return null;
  const record = meta as Json;
  const units = record.billed_units ?? record.tokens;
  if (typeof units !== 'object' || units === null) return null;
  const count = (value: unknown) => (typeof value === 'number' && value > 0 ? Math.floor(value) : 0);
  return makeUsage(count(units.input_tokens), count(units.output_tokens));
}

/**
 * Cohere's finish reasons: COMPLETE and STOP_SEQUENCE → stop, MAX_TOKENS → length (new-api answered
 * `max_tokens`, which OpenAI clients do not know), ERROR_TOXIC → content_filter. ERROR, ERROR_LIMIT and
 * USER_CANCEL are failures: null.
 */
export function mapCohereFinishReason(reason: unknown): string | null {
  switch (reason) {
    case 'COMPLETE':
    case 'STOP_SEQUENCE':
    case undefined:
    case null:
      return 'stop';
    case 'MAX_TOKENS':
      return 'length';
    case 'ERROR_TOXIC':
      return 'content_filter';
    default:
      return null;
  }
}
