import { maxOutputTokens, type OpenAIChatRequest, stopSequences } from '../shared/openai-chat-types';
import type { AnthropicRequest } from './anthropic-types';
import { convertToAnthropicMessages } from './convert-to-anthropic-messages';
import { convertToAnthropicToolChoice, convertToAnthropicTools } from './convert-to-anthropic-tools';

/** Claude requires max_tokens; new-api's default when the client sends none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

function numberOrUndefined(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}

/** An OpenAI chat request → a Claude Messages request. Zero values (temperature 0) are kept. */
export function buildAnthropicRequest(request: OpenAIChatRequest, upstreamModel: string, isStream: boolean): AnthropicRequest {
  const { system, messages } = convertToAnthropicMessages(request.messages ?? []);
  const out: AnthropicRequest = {
    model: upstreamModel,
    messages,
    max_tokens: maxOutputTokens(request) ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
  };
  if (system !== undefined) out.system = system;
  if (isStream) out.stream = true;
  const temperature = numberOrUndefined(request.temperature);
  if (temperature !== undefined) out.temperature = temperature;
  const topP = numberOrUndefined(request.top_p);
  if (topP !== undefined) out.top_p = topP;
  const topK = numberOrUndefined(request.top_k);
  if (topK !== undefined) out.top_k = topK;
  const stop = stopSequences(request.stop);
  if (stop.length > 0) out.stop_sequences = stop;
  const tools = convertToAnthropicTools(request.tools);
  if (tools && tools.length > 0) {
    out.tools = tools;
    const toolChoice = convertToAnthropicToolChoice(request);
    if (toolChoice) out.tool_choice = toolChoice;
  }
  if (typeof request.user === 'string' && request.user !== '') out.metadata = { user_id: request.user };
  return out;
}
