import { buildAnthropicRequest } from '../anthropic/build-anthropic-request';
import { inlineAnthropicImages } from '../anthropic/inline-anthropic-images';
import type { OpenAIChatRequest } from '../shared/openai-chat-types';
import type { InlineMedia } from '../upstream-adapter';

export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

/**
 * The Claude Messages body Bedrock's InvokeModel takes: the anthropic/ conversion (tools and tool_choice included,
 * as new-api added right after v0.3.0.0), without `model` and `stream` (the model is in the path, streaming is the
 * operation) nor `metadata` (Bedrock refuses extraneous keys), plus `anthropic_version`; image URLs inlined (the
 * relay fetched them: Bedrock takes base64 images only).
 */
export function buildBedrockBody(
  request: OpenAIChatRequest,
  upstreamModel: string,
  media?: ReadonlyMap<string, InlineMedia>,
): Record<string, unknown> {
  const { model: _model, stream: _stream, metadata: _metadata, ...rest } = buildAnthropicRequest(request, upstreamModel, false);
  return { anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...rest, messages: inlineAnthropicImages(rest.messages, media) };
}
