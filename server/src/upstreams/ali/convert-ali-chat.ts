import { normalizeOpenAIUsage } from '../shared/normalize-usage';
import type { OpenAIChatRequest } from '../shared/openai-chat-types';
import type { ConvertedAnswer, JsonObject, TokenUsage } from '../upstream-adapter';
import { ConvertRequestError } from '../upstream-errors';
import { messageText } from '../baidu/convert-baidu';

/** A model name ending in `-internet` asks for DashScope's web search on the model without the suffix. */
const SEARCH_SUFFIX = '-internet';

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}

/**
 * OpenAI chat → DashScope text-generation (https://help.aliyun.com/zh/model-studio/developer-reference/use-qwen-by-calling-api):
 * `{model, input: {messages}, parameters}`. Streams ask for `incremental_output` so each event holds only new text.
 * top_p is kept inside DashScope's open interval (0, 1).
 */
export function buildAliChatRequest(body: OpenAIChatRequest, upstreamModel: string, isStream: boolean): JsonObject {
  if (!Array.isArray(body.messages)) throw new ConvertRequestError('messages must be a list');
  let model = upstreamModel;
  const parameters: JsonObject = {};
  if (model.endsWith(SEARCH_SUFFIX)) {
    model = model.slice(0, -SEARCH_SUFFIX.length);
    parameters.enable_search = true;
  }
  if (isStream) parameters.incremental_output = true;
  if (typeof body.temperature === 'number') parameters.temperature = body.temperature;
  if (typeof body.top_p === 'number') parameters.top_p = clamp(body.top_p, 0.001, 0.999);
  if (typeof body.top_k === 'number') parameters.top_k = body.top_k;
  const maxTokens = body.max_tokens ?? body.max_completion_tokens;
  if (typeof maxTokens === 'number' && maxTokens > 0) parameters.max_tokens = maxTokens;
  if (typeof body.seed === 'number') parameters.seed = body.seed;
  if (typeof body.stop === 'string') parameters.stop = [body.stop];
  else if (Array.isArray(body.stop)) parameters.stop = body.stop;
  if (typeof body.presence_penalty === 'number') parameters.presence_penalty = body.presence_penalty;
  return {
    model,
    input: { messages: body.messages.map((message) => ({ role: String(message.role).toLowerCase(), content: messageText(message) })) },
    parameters,
  };
}

/** DashScope's `usage` (input_tokens / output_tokens). */
export function mapAliUsage(usage: unknown): TokenUsage | null {
  return normalizeOpenAIUsage(usage);
}

/** DashScope's finish_reason: the string "null" while generating, else stop / length. */
export function aliFinishReason(value: unknown): string | null {
  return typeof value === 'string' && value !== '' && value !== 'null' ? value : null;
}

/** A text-generation answer `{output: {text, finish_reason}, usage, request_id}` as an OpenAI chat completion. */
export function convertAliChat(body: JsonObject, model: string, fallbackId: string, now: number): ConvertedAnswer {
  const output = (typeof body.output === 'object' && body.output !== null ? body.output : {}) as JsonObject;
  const text = typeof output.text === 'string' ? output.text : '';
  const usage = mapAliUsage(body.usage);
  return {
    body: {
      id: typeof body.request_id === 'string' && body.request_id ? `chatcmpl-${body.request_id}` : fallbackId,
      object: 'chat.completion',
      created: Math.floor(now / 1000),
      model,
      choices: [
        { index: 0, message: { role: 'assistant', content: text }, finish_reason: aliFinishReason(output.finish_reason) ?? 'stop' },
      ],
      usage: usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    },
    usage,
    text,
  };
}
