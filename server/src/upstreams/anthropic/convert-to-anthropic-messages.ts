import {
  imageUrlOf,
  type OpenAIChatMessage,
  type OpenAIContentPart,
  type OpenAIImagePart,
  parseToolArguments,
  textOfContent,
} from '../shared/openai-chat-types';
import { isHttpUrl, parseDataUrl } from '../shared/parse-data-url';
import { ConvertRequestError } from '../upstream-errors';
import type { AnthropicContentBlock, AnthropicMessage } from './anthropic-types';

/** Claude rejects empty content; new-api fills it with this too. */
const PLACEHOLDER = '...';

function imageBlock(part: OpenAIImagePart): AnthropicContentBlock {
  const url = imageUrlOf(part);
  // Claude fetches URL images itself (https://docs.anthropic.com/en/docs/build-with-claude/vision), so the
  // gateway does not download them as new-api did.
  if (isHttpUrl(url)) return { type: 'image', source: { type: 'url', url } };
  const { mimeType, data } = parseDataUrl(url);
  return { type: 'image', source: { type: 'base64', media_type: mimeType, data } };
}

function contentBlocks(content: OpenAIChatMessage['content']): AnthropicContentBlock[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const blocks: AnthropicContentBlock[] = [];
  for (const part of content as OpenAIContentPart[]) {
    if (part.type === 'text') {
      if (typeof part.text === 'string' && part.text !== '') blocks.push({ type: 'text', text: part.text });
    } else if (part.type === 'image_url') blocks.push(imageBlock(part as OpenAIImagePart));
    else throw new ConvertRequestError(`content part type ${part.type} is not supported by Claude channels`);
  }
  return blocks;
}

function blocksOf(message: OpenAIChatMessage): { role: 'user' | 'assistant'; blocks: AnthropicContentBlock[] } {
  switch (message.role) {
    case 'user':
      return { role: 'user', blocks: contentBlocks(message.content) };
    case 'assistant': {
      const blocks = contentBlocks(message.content);
      for (const call of message.tool_calls ?? []) {
        blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input: parseToolArguments(call.function.arguments) });
      }
      return { role: 'assistant', blocks };
    }
    case 'tool':
      return {
        role: 'user',
        blocks: [{ type: 'tool_result', tool_use_id: message.tool_call_id ?? '', content: textOfContent(message.content) }],
      };
    default:
      throw new ConvertRequestError(`message role ${message.role} is not supported by Claude channels`);
  }
}

/**
 * OpenAI chat messages → Claude `system` + alternating `messages` (new-api's mapping, with fixes):
 * - every system (and developer) message is kept, joined by a blank line; new-api kept only the last;
 * - consecutive messages of one role merge into one message with all their blocks, so tool results after
 *   parallel tool calls land in a single user turn and array content is merged too (new-api merged
 *   only string content);
 * - a message left with no block gets "..."; a conversation that does not open with the user gets a "..."
 *   user turn first, as Claude requires.
 */
export function convertToAnthropicMessages(messages: readonly OpenAIChatMessage[]): {
  system?: string;
  messages: AnthropicMessage[];
} {
  const system: string[] = [];
  const out: AnthropicMessage[] = [];
  for (const message of messages) {
    if (message.role === 'system' || message.role === 'developer') {
      const text = textOfContent(message.content);
      if (text) system.push(text);
      continue;
    }
    const { role, blocks } = blocksOf(message);
    const previous = out[out.length - 1];
    if (previous && previous.role === role) previous.content.push(...blocks);
    else out.push({ role, content: blocks });
  }
  for (const message of out) if (message.content.length === 0) message.content.push({ type: 'text', text: PLACEHOLDER });
  if (out.length === 0 || out[0].role !== 'user') out.unshift({ role: 'user', content: [{ type: 'text', text: PLACEHOLDER }] });
  return system.length > 0 ? { system: system.join('\n\n'), messages: out } : { messages: out };
}
