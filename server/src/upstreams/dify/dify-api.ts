import type { Json } from '../shared/converted-text-stream';
import { normalizeOpenAIUsage } from '../shared/normalize-usage';
import { type OpenAIChatRequest, textOfContent } from '../shared/openai-chat-types';
import { channelBaseUrl, splitBaseUrl, upstreamTarget } from '../shared/upstream-url';
import type { TokenUsage, UpstreamRequest, UpstreamRequestInput } from '../upstream-adapter';

/** Dify has no public default: the channel's base URL is the Dify API base (e.g. https://api.dify.ai). */
export function difyTarget(input: UpstreamRequestInput): Pick<UpstreamRequest, 'origin' | 'path' | 'url'> {
  return upstreamTarget(splitBaseUrl(channelBaseUrl(input.channel.baseUrl, '', 'dify')), '/v1/chat-messages');
}

export function difyHeaders(input: UpstreamRequestInput): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${input.channel.key}` };
  if (input.isStream) headers.accept = 'text/event-stream';
  return headers;
}

/**
 * The whole conversation flattened into Dify's one `query`, as new-api does: each message as `SYSTEM: \n`,
 * `ASSISTANT: \n` or `USER: \n` (every other role), its text, and a newline.
 */
export function flattenDifyQuery(request: OpenAIChatRequest): string {
  let query = '';
  for (const message of request.messages ?? []) {
    const label = message.role === 'system' ? 'SYSTEM' : message.role === 'assistant' ? 'ASSISTANT' : 'USER';
    query += `${label}: \n${textOfContent(message.content)}\n`;
  }
  return query;
}

export function buildDifyRequest(request: OpenAIChatRequest, isStream: boolean): Json {
  return {
    inputs: {},
    query: flattenDifyQuery(request),
    response_mode: isStream ? 'streaming' : 'blocking',
    user: typeof request.user === 'string' && request.user !== '' ? request.user : 'api-user',
    auto_generate_name: false,
  };
}

/** `metadata.usage` of a blocking answer or a `message_end` event. */
export function difyUsage(metadata: unknown): TokenUsage | null {
  if (typeof metadata !== 'object' || metadata === null) return null;
  return normalizeOpenAIUsage((metadata as Json).usage);
}
