import { UpstreamLocalError } from '../upstream-errors';

/** Claude names → Bedrock model ids (new-api's map, with the ids it added after v0.3.0.0). */
const AWS_MODEL_IDS: Readonly<Record<string, string>> = {
  'claude-instant-1.2': 'anthropic.claude-instant-v1',
  'claude-2.0': 'anthropic.claude-v2',
  'claude-2.1': 'anthropic.claude-v2:1',
  'claude-3-sonnet-20240229': 'anthropic.claude-3-sonnet-20240229-v1:0',
  'claude-3-opus-20240229': 'anthropic.claude-3-opus-20240229-v1:0',
  'claude-3-haiku-20240307': 'anthropic.claude-3-haiku-20240307-v1:0',
  'claude-3-5-sonnet-20240620': 'anthropic.claude-3-5-sonnet-20240620-v1:0',
  'claude-3-5-sonnet-20241022': 'anthropic.claude-3-5-sonnet-20241022-v2:0',
  'claude-3-5-haiku-20241022': 'anthropic.claude-3-5-haiku-20241022-v1:0',
};

/**
 * The Bedrock model id for the (mapped) model. A name that already is a Bedrock id (`anthropic.…`, or a
 * cross-region profile such as `us.anthropic.…`) is used as is, so newer Claude models need only a model mapping;
 * new-api refused every name outside its map. Anything else fails locally: `model X not found`.
 */
export function awsModelId(model: string): string {
  const mapped = AWS_MODEL_IDS[model];
  if (mapped) return mapped;
  if (/^([a-z]{2,4}\.)?anthropic\./.test(model)) return model;
  throw new UpstreamLocalError(`model ${model} not found`, 'model_not_found', 500);
}
