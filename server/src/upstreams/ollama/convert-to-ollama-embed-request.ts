import type { JsonObject } from '../upstream-adapter';
import { ConvertRequestError } from '../upstream-errors';

/**
 * OpenAI embeddings → Ollama `POST /api/embed` (https://github.com/ollama/ollama/blob/main/docs/api.md#generate-embeddings).
 * new-api v0.3.0.0 sent `input` to the older `/api/embeddings`, which reads `prompt` and so
 * embedded nothing; v0.3.0.2 moved to `/api/embed`, which takes a string or a list of strings.
 */
export function convertToOllamaEmbedRequest(body: JsonObject, upstreamModel: string): JsonObject {
  const input = body.input;
  const valid = typeof input === 'string' || (Array.isArray(input) && input.every((item) => typeof item === 'string'));
  if (!valid) throw new ConvertRequestError('Ollama embeddings take a string or a list of strings as input');
  const request: JsonObject = { model: upstreamModel, input };
  if (typeof body.dimensions === 'number') request.dimensions = body.dimensions;
  return request;
}
