import type { Json } from '../shared/converted-text-stream';
import type { ConvertedAnswer, OpenAIError, TokenUsage } from '../upstream-adapter';
import { cohereUsage, mapCohereFinishReason } from './cohere-api';

/** A Cohere v1 chat answer (`{response_id, text, finish_reason, meta}`) → an OpenAI chat.completion, or an error. */
export function convertCohereChat(body: Json, identity: { id: string; created: number; model: string }): ConvertedAnswer | OpenAIError {
  const finishReason = mapCohereFinishReason(body.finish_reason);
  if (finishReason === null) {
    return { message: `Cohere stopped: ${String(body.finish_reason)}`, type: 'cohere_error', param: '', code: String(body.finish_reason) };
  }
  const text = typeof body.text === 'string' ? body.text : '';
  const usage = cohereUsage(body.meta);
  return {
    body: {
      id: typeof body.response_id === 'string' ? `chatcmpl-${body.response_id}` : identity.id,
      object: 'chat.completion',
      created: identity.created,
      model: identity.model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, logprobs: null, finish_reason: finishReason }],
      usage: usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    },
    usage,
    text,
  };
}

/**
 * A Cohere rerank answer (`{id, results:[{index, relevance_score, document}], meta}`) → the Jina-style answer the
 * relay returns for every rerank type: `{model, results, usage}`. Cohere bills rerank in search units, so token
 * usage is there only when Cohere reports tokens; otherwise the relay counts the prompt locally and the body
 * carries no usage.
 */
export function convertCohereRerank(body: Json, model: string): { body: Record<string, unknown>; usage: TokenUsage | null } {
  const results = Array.isArray(body.results) ? body.results : [];
  const usage = cohereUsage(body.meta);
  const out: Record<string, unknown> = {
    id: body.id,
    model,
    results: results.map((result: Json) => {
      const entry: Record<string, unknown> = { index: result.index, relevance_score: result.relevance_score };
      if (result.document !== undefined) entry.document = result.document;
      return entry;
    }),
  };
  if (usage) out.usage = { prompt_tokens: usage.prompt_tokens, total_tokens: usage.total_tokens };
  return { body: out, usage };
}
