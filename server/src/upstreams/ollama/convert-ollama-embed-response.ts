import { makeUsage } from '../shared/normalize-usage';
import type { TokenUsage } from '../upstream-adapter';

export interface OllamaEmbedResponse {
  model?: string;
  embeddings?: number[][];
  prompt_eval_count?: number;
}

/** Little-endian float32, base64: what OpenAI returns for `encoding_format: "base64"` (the default of openai-node). */
export function toBase64Float32(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i], i * 4);
  return bytes.toString('base64');
}

/** Ollama `/api/embed` → OpenAI's embeddings list, one item per input. */
export function convertOllamaEmbedResponse(
  response: OllamaEmbedResponse,
  model: string,
  encodingFormat: unknown,
): { body: Record<string, unknown>; usage: TokenUsage | null } {
  const usage = makeUsage(response.prompt_eval_count ?? 0, 0);
  const base64 = encodingFormat === 'base64';
  return {
    body: {
      object: 'list',
      data: (response.embeddings ?? []).map((vector, index) => ({
        object: 'embedding',
        index,
        embedding: base64 ? toBase64Float32(vector) : vector,
      })),
      model: response.model ?? model,
      usage: { prompt_tokens: usage?.prompt_tokens ?? 0, total_tokens: usage?.total_tokens ?? 0 },
    },
    usage,
  };
}
