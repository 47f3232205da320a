import type { InlineMedia } from '../upstream-adapter';
import type { AnthropicMessage } from './anthropic-types';

/**
 * Claude on AWS Bedrock and on Vertex AI takes base64 images only (no URL sources): every URL source the relay
 * fetched (`needsRemoteMedia`) becomes a base64 source. A URL not fetched is left as is.
 */
export function inlineAnthropicImages(
  messages: AnthropicMessage[],
  media: ReadonlyMap<string, InlineMedia> | undefined,
): AnthropicMessage[] {
  if (!media || media.size === 0) return messages;
  return messages.map((message) => ({
    ...message,
    content: message.content.map((block) => {
      if (block.type !== 'image' || block.source.type !== 'url') return block;
      const fetched = media.get(block.source.url);
      return fetched ? { type: 'image', source: { type: 'base64', media_type: fetched.mimeType, data: fetched.data } } : block;
    }),
  }));
}
