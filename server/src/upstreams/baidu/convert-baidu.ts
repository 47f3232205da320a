import { toBase64Float32 } from '../ollama/convert-ollama-embed-response';
import { makeUsage } from '../shared/normalize-usage';
import type { OpenAIChatMessage, OpenAIChatRequest } from '../shared/openai-chat-types';
import type { ConvertedAnswer, JsonObject, TokenUsage } from '../upstream-adapter';
import { ConvertRequestError } from '../upstream-errors';

/** A message's text: a string as is, text parts joined (Baidu takes text only). */
export function messageText(message: OpenAIChatMessage): string {
  if (typeof message.content === 'string') return message.content;
  if (!Array.isArray(message.content)) return '';
  return message.content
    .filter((part) => part.type === 'text' && typeof (part as { text?: unknown }).text === 'string')
    .map((part) => (part as { text: string }).text)
    .join('');
}

const positive = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value !== 0;

/**
 * OpenAI chat → Wenxin chat (https://cloud.baidu.com/doc/WENXINWORKSHOP/s/clntwmv7t): system messages go to the top-level
 * `system`, frequency_penalty becomes penalty_score, max_tokens max_output_tokens (at least 2, Baidu's minimum) and user
 * user_id. Zero values are left out as new-api leaves them out (Baidu refuses a temperature of 0).
 */
export function buildBaiduChatRequest(body: OpenAIChatRequest): JsonObject {
  if (!Array.isArray(body.messages)) throw new ConvertRequestError('messages must be a list');
  const request: JsonObject = { messages: [] as JsonObject[] };
  const system: string[] = [];
  for (const message of body.messages) {
    if (message.role === 'system' || message.role === 'developer') system.push(messageText(message));
    else (request.messages as JsonObject[]).push({ role: message.role, content: messageText(message) });
  }
  if (system.length > 0) request.system = system.join('\n');
  if (positive(body.temperature)) request.temperature = body.temperature;
  if (positive(body.top_p)) request.top_p = body.top_p;
  if (positive(body.frequency_penalty)) request.penalty_score = body.frequency_penalty;
  if (body.stream === true) request.stream = true;
  const maxTokens = body.max_tokens ?? body.max_completion_tokens;
  if (positive(maxTokens)) request.max_output_tokens = Math.max(2, maxTokens);
  const user = (body as unknown as JsonObject).user;
  if (typeof user === 'string' && user !== '') request.user_id = user;
  return request;
}

/** OpenAI embeddings → Baidu `{input: [texts]}`. */
export function buildBaiduEmbeddingRequest(body: JsonObject): JsonObject {
  const input = body.input;
  if (typeof input === 'string') return { input: [input] };
  if (Array.isArray(input) && input.length > 0 && input.every((item) => typeof item === 'string')) return { input };
  throw new ConvertRequestError('Baidu embeddings take a string or a list of strings as input');
}

export interface BaiduUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

/** Baidu's usage; the completion is total − prompt when Baidu leaves completion_tokens out (as in its streams). */
export function mapBaiduUsage(usage: BaiduUsage | undefined): TokenUsage | null {
  if (!usage) return null;
  const prompt = count(usage.prompt_tokens);
  const total = count(usage.total_tokens);
  const completion = count(usage.completion_tokens) || Math.max(0, total - prompt);
  return makeUsage(prompt, completion, { total });
}

/** A Wenxin chat answer `{id, created, result, usage}` as an OpenAI chat completion. */
export function convertBaiduChat(body: JsonObject, model: string, fallbackId: string, now: number): ConvertedAnswer {
  const text = typeof body.result === 'string' ? body.result : '';
  const usage = mapBaiduUsage(body.usage as BaiduUsage | undefined);
  return {
    body: {
      id: typeof body.id === 'string' && body.id ? body.id : fallbackId,
      object: 'chat.completion',
      created: typeof body.created === 'number' ? body.created : Math.floor(now / 1000),
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    },
    usage,
    text,
  };
}

/** A Baidu embeddings answer as OpenAI's list (base64 when the client asked, as openai-node does by default). */
export function convertBaiduEmbeddings(body: JsonObject, model: string, encodingFormat: unknown): ConvertedAnswer {
  const usage = mapBaiduUsage(body.usage as BaiduUsage | undefined);
  const data = Array.isArray(body.data) ? (body.data as Array<{ index?: number; embedding?: number[] }>) : [];
  return {
    body: {
      object: 'list',
      data: data.map((item, position) => ({
        object: 'embedding',
        index: typeof item.index === 'number' ? item.index : position,
        embedding: encodingFormat === 'base64' ? toBase64Float32(item.embedding ?? []) : (item.embedding ?? []),
      })),
      model,
      usage: { prompt_tokens: usage?.prompt_tokens ?? 0, total_tokens: usage?.total_tokens ?? 0 },
    },
    usage,
    text: '',
  };
}
