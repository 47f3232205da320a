import { toBase64Float32 } from '../ollama/convert-ollama-embed-response';
import { makeUsage } from '../shared/normalize-usage';
import type { ConvertedAnswer, JsonObject } from '../upstream-adapter';
import { ConvertRequestError } from '../upstream-errors';

/**
 * OpenAI embeddings → DashScope text-embedding `{model, input: {texts}}`. new-api always sent text-embedding-v1 whatever
 * the model; the channel's (mapped) model is sent, so text-embedding-v2/v3 work and the model billed is the one used.
 */
export function buildAliEmbeddingRequest(body: JsonObject, upstreamModel: string): JsonObject {
  const input = body.input;
  const texts = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(texts) || texts.length === 0 || !texts.every((text) => typeof text === 'string')) {
    throw new ConvertRequestError('Alibaba embeddings take a string or a list of strings as input');
  }
  const request: JsonObject = { model: upstreamModel, input: { texts } };
  if (typeof body.dimensions === 'number') request.parameters = { dimension: body.dimensions };
  return request;
}

/** `{output: {embeddings: [{text_index, embedding}]}, usage: {total_tokens}}` → OpenAI's list. */
export function convertAliEmbeddings(body: JsonObject, model: string, encodingFormat: unknown): ConvertedAnswer {
  const output = (typeof body.output === 'object' && body.output !== null ? body.output : {}) as JsonObject;
  const items = Array.isArray(output.embeddings) ? (output.embeddings as Array<{ text_index?: number; embedding?: number[] }>) : [];
  const total =
    typeof (body.usage as JsonObject | undefined)?.total_tokens === 'number' ? ((body.usage as JsonObject).total_tokens as number) : 0;
  const usage = makeUsage(total, 0);
  return {
    body: {
      object: 'list',
      data: items.map((item, position) => ({
        object: 'embedding',
        index: typeof item.text_index === 'number' ? item.text_index : position,
        embedding: encodingFormat === 'base64' ? toBase64Float32(item.embedding ?? []) : (item.embedding ?? []),
      })),
      model,
      usage: { prompt_tokens: total, total_tokens: total },
    },
    usage,
    text: '',
  };
}
