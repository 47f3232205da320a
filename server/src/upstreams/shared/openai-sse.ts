import type { OpenAIError, TokenUsage } from '../upstream-adapter';

/** Identity fields every chunk of one client stream shares. */
export interface ChunkIdentity {
  id: string;
  /** 'chat.completion.chunk', or 'text_completion' for /v1/completions streams */
  object: string;
  /** Unix seconds */
  created: number;
  model: string;
}

export const DONE_EVENT = 'data: [DONE]\n\n';

export function sseEvent(json: string): string {
  return `data: ${json}\n\n`;
}

/** A chunk with one choice; `delta` and `finishReason` as OpenAI streams them. */
export function chatChunkEvent(
  identity: ChunkIdentity,
  delta: Record<string, unknown>,
  finishReason: string | null = null,
  index = 0,
): string {
  return sseEvent(
    JSON.stringify({
      id: identity.id,
      object: identity.object,
      created: identity.created,
      model: identity.model,
      choices: [{ index, delta, finish_reason: finishReason }],
    }),
  );
}

/** The final usage chunk OpenAI sends when asked with stream_options.include_usage: no choices, just the usage. */
export function usageChunkEvent(identity: ChunkIdentity, usage: TokenUsage): string {
  return sseEvent(
    JSON.stringify({
      id: identity.id,
      object: identity.object,
      created: identity.created,
      model: identity.model,
      system_fingerprint: null,
      choices: [],
      usage,
    }),
  );
}

/**
 * The event that ends a stream which did not complete. OpenAI's SDKs raise an APIError when a data event
 * carries an `error` key; no [DONE] follows, because [DONE] tells clients the answer is complete.
 */
export function errorEvent(error: OpenAIError, requestId?: string): string {
  const message = requestId ? `${error.message} (request id: ${requestId})` : error.message;
  return sseEvent(JSON.stringify({ error: { ...error, message } }));
}
