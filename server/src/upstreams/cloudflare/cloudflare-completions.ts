import { ConvertedTextStream } from '../shared/converted-text-stream';
import { normalizeOpenAIUsage } from '../shared/normalize-usage';
import type { ConvertedAnswer, UpstreamRequestInput, UpstreamSettings } from '../upstream-adapter';

/** /v1/completions → Workers AI's `run` input for text generation: prompt, max_tokens, temperature, stream. */
export function buildCloudflareCompletion(body: Record<string, unknown>, isStream: boolean): Record<string, unknown> {
  const prompt = Array.isArray(body.prompt) ? body.prompt.map(String).join('') : String(body.prompt ?? '');
  const out: Record<string, unknown> = { prompt };
  if (typeof body.max_tokens === 'number') out.max_tokens = body.max_tokens;
  if (typeof body.temperature === 'number') out.temperature = body.temperature;
  if (typeof body.top_p === 'number') out.top_p = body.top_p;
  if (typeof body.seed === 'number') out.seed = body.seed;
  if (isStream) out.stream = true;
  return out;
}

/** `{result: {response, usage}}` → an OpenAI text_completion (new-api parsed it as a chat answer and lost it). */
export function convertCloudflareCompletion(
  result: Record<string, unknown>,
  identity: { id: string; created: number; model: string },
): ConvertedAnswer {
  const text = typeof result.response === 'string' ? result.response : '';
  const usage = normalizeOpenAIUsage(result.usage);
  return {
    body: {
      id: identity.id,
      object: 'text_completion',
      created: identity.created,
      model: identity.model,
      choices: [{ index: 0, text, logprobs: null, finish_reason: 'stop' }],
      usage: usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    },
    usage,
    text,
  };
}

/**
 * The `run` stream: SSE `data: {"response": "<piece>"}` events, the last ones carrying `usage`, then `data: [DONE]`
 * → text_completion chunks, then the finish chunk at [DONE].
 */
export class CloudflareCompletionStream extends ConvertedTextStream {
  constructor(input: UpstreamRequestInput, settings: UpstreamSettings) {
    super(input, settings, 'sse', 'completion');
  }

  protected onEvent(_event: string, data: string): void {
    if (data.trim() === '[DONE]') {
      this.finishWith('stop');
      return this.terminate();
    }
    const event = this.json(data);
    if (!event) return;
    if (Array.isArray(event.errors) && event.errors.length > 0) {
      const first = event.errors[0] as Record<string, unknown>;
      return this.failWith({
        message: String(first.message ?? data),
        type: 'cloudflare_error',
        param: '',
        code: (first.code as number) ?? null,
      });
    }
    if (typeof event.response === 'string') this.text(event.response);
    this.reportUsage(normalizeOpenAIUsage(event.usage));
  }
}
