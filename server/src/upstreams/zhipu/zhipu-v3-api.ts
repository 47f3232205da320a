import { parseJsonObject } from '../shared/map-upstream-error';
import { normalizeOpenAIUsage } from '../shared/normalize-usage';
import type { OpenAIChatRequest } from '../shared/openai-chat-types';
import type { ConvertedAnswer, JsonObject, UpstreamFailure } from '../upstream-adapter';
import { ConvertRequestError } from '../upstream-errors';
import { messageText } from '../baidu/convert-baidu';
import { clampZhipuTopP } from './zhipu-v4-profile';

/**
 * OpenAI chat → ChatGLM v3 `{prompt, temperature, top_p, incremental}` (https://open.bigmodel.cn/dev/api#chatglm_std, v3).
 * A system message is followed by an injected `{role: "user", content: "Okay"}` as new-api sends it. Streams ask for
 * incremental output (Zhipu's default), so every `add` event is new text; new-api asked for full output and forwarded
 * each event as a delta.
 */
export function buildZhipuV3Request(body: OpenAIChatRequest): JsonObject {
  if (!Array.isArray(body.messages)) throw new ConvertRequestError('messages must be a list');
  const prompt: JsonObject[] = [];
  for (const message of body.messages) {
    if (message.role === 'system') {
      prompt.push({ role: 'system', content: messageText(message) }, { role: 'user', content: 'Okay' });
    } else {
      prompt.push({ role: message.role, content: messageText(message) });
    }
  }
  const request: JsonObject = { prompt, incremental: true };
  if (typeof body.temperature === 'number' && body.temperature !== 0) request.temperature = body.temperature;
  if (typeof body.top_p === 'number' && body.top_p !== 0) request.top_p = clampZhipuTopP(body.top_p) ?? body.top_p;
  return request;
}

/** ChatGLM quotes its answers (`"\"Hello\\n\""`): the JSON string inside, else the text without its quotes. */
export function unquoteZhipuContent(content: string): string {
  if (content.length >= 2 && content.startsWith('"') && content.endsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(content);
      if (typeof parsed === 'string') return parsed;
    } catch {
      // not JSON: trimmed below, as new-api trims it
    }
  }
  return content.replace(/^"+|"+$/g, '');
}

/** Zhipu's codes for a refused token (1000–1004) and for concurrency and rate limits (1302, 1303, 1305). */
const AUTH_CODES = new Set([1000, 1001, 1002, 1003, 1004]);
const RATE_CODES = new Set([1302, 1303, 1305]);

/** `{code, msg, success: false}` as the OpenAI error (type `zhipu_error`), with a status the health rules can read. */
export function zhipuV3Failure(httpStatus: number, body: JsonObject): UpstreamFailure {
  const code = typeof body.code === 'number' ? body.code : Number(body.code) || 0;
  let status = httpStatus >= 400 ? httpStatus : 500;
  if (AUTH_CODES.has(code)) status = 401;
  else if (RATE_CODES.has(code)) status = 429;
  const message = typeof body.msg === 'string' && body.msg !== '' ? body.msg : `zhipu error ${code}`;
  return { ok: false, status, error: { message, type: 'zhipu_error', param: '', code } };
}

/** A v3 `invoke` answer; null when it is not one (the caller reports it unreadable). */
export function readZhipuV3Answer(bytes: Uint8Array, status: number): { failure: UpstreamFailure } | { data: JsonObject } | null {
  const body = parseJsonObject(bytes);
  if (!body) return null;
  if (body.success !== true) return { failure: zhipuV3Failure(status, body) };
  return typeof body.data === 'object' && body.data !== null ? { data: body.data as JsonObject } : null;
}

/** `data: {task_id, choices: [{role, content}], usage}` as an OpenAI chat completion; the last choice has finish_reason stop. */
export function convertZhipuV3Answer(data: JsonObject, model: string, fallbackId: string, now: number): ConvertedAnswer {
  const choices = Array.isArray(data.choices) ? (data.choices as JsonObject[]) : [];
  const texts = choices.map((choice) => (typeof choice.content === 'string' ? unquoteZhipuContent(choice.content) : ''));
  const usage = normalizeOpenAIUsage(data.usage);
  return {
    body: {
      id: typeof data.task_id === 'string' && data.task_id ? data.task_id : fallbackId,
      object: 'chat.completion',
      created: Math.floor(now / 1000),
      model,
      choices: choices.map((choice, index) => ({
        index,
        message: { role: typeof choice.role === 'string' ? choice.role : 'assistant', content: texts[index] },
        finish_reason: index === choices.length - 1 ? 'stop' : null,
      })),
      usage: usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    },
    usage,
    text: texts.join(''),
  };
}
