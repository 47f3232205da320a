import type { JsonObject } from '../upstream-adapter';

/** o1, o1-mini, o3-mini, o4-mini…: the reasoning models. */
export function isReasoningModel(model: string): boolean {
  return model.length > 1 && model.charCodeAt(0) === 111 /* o */ && model.charCodeAt(1) >= 48 && model.charCodeAt(1) <= 57;
}

/**
 * OpenAI's reasoning models reject `max_tokens` and want `max_completion_tokens`
 * (https://platform.openai.com/docs/guides/reasoning). new-api renamed it for `o1-*`; the rule here
 * covers every o-series name. An explicit max_completion_tokens wins.
 */
export function rewriteReasoningModelBody(body: JsonObject, upstreamModel: string): JsonObject | null {
  if (!isReasoningModel(upstreamModel) || body.max_tokens === undefined) return null;
  return {
    max_tokens: undefined,
    max_completion_tokens: body.max_completion_tokens ?? body.max_tokens,
  };
}
