import {
  imageUrlOf,
  type OpenAIChatMessage,
  type OpenAIContentPart,
  type OpenAIImagePart,
  parseToolArguments,
  textOfContent,
} from '../shared/openai-chat-types';
import { isHttpUrl, parseDataUrl } from '../shared/parse-data-url';
import type { InlineMedia } from '../upstream-adapter';
import { ConvertRequestError } from '../upstream-errors';
import type { GeminiContent, GeminiPart } from './gemini-types';

const EXTENSION_MIME: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
};

function guessMimeType(url: string): string {
  const path = url.split(/[?#]/)[0];
  return EXTENSION_MIME[path.slice(path.lastIndexOf('.') + 1).toLowerCase()] ?? 'image/jpeg';
}

/**
 * Gemini cannot fetch arbitrary URLs, so the relay fetches them (adapter.needsRemoteMedia) and passes them
 * in `media`; an unfetched URL goes as fileData, which Gemini accepts for its Files API and gs:// URIs.
 */
function imagePart(part: OpenAIImagePart, media: ReadonlyMap<string, InlineMedia> | undefined): GeminiPart {
  const url = imageUrlOf(part);
  if (isHttpUrl(url)) {
    const fetched = media?.get(url);
    return fetched
      ? { inlineData: { mimeType: fetched.mimeType, data: fetched.data } }
      : { fileData: { mimeType: guessMimeType(url), fileUri: url } };
  }
  if (url.startsWith('gs://')) return { fileData: { mimeType: guessMimeType(url), fileUri: url } };
  const { mimeType, data } = parseDataUrl(url);
  return { inlineData: { mimeType, data } };
}

function contentParts(content: OpenAIChatMessage['content'], media: ReadonlyMap<string, InlineMedia> | undefined): GeminiPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  if (!Array.isArray(content)) return [];
  const parts: GeminiPart[] = [];
  for (const part of content as OpenAIContentPart[]) {
    if (part.type === 'text') {
      if (typeof part.text === 'string' && part.text !== '') parts.push({ text: part.text });
    } else if (part.type === 'image_url') parts.push(imagePart(part as OpenAIImagePart, media));
    else throw new ConvertRequestError(`content part type ${part.type} is not supported by Gemini channels`);
  }
  return parts;
}

/**
 * OpenAI messages → Gemini `contents` and `systemInstruction` (new-api's mapping with fixes, docs/providers.md):
 * system messages go to systemInstruction, not new-api's user turn followed by an injected "Okay" model turn;
 * assistant tool calls become functionCall parts and tool results functionResponse parts named after the
 * call they answer; consecutive turns of one role merge, as Gemini expects one turn per role change.
 */
export function convertToGeminiContents(
  messages: readonly OpenAIChatMessage[],
  media?: ReadonlyMap<string, InlineMedia>,
): { contents: GeminiContent[]; systemInstruction?: { parts: Array<{ text: string }> } } {
  const system: Array<{ text: string }> = [];
  const contents: GeminiContent[] = [];
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    let role: GeminiContent['role'];
    let parts: GeminiPart[];
    switch (message.role) {
      case 'system':
      case 'developer': {
        const text = textOfContent(message.content);
        if (text) system.push({ text });
        continue;
      }
      case 'user':
        [role, parts] = ['user', contentParts(message.content, media)];
        break;
      case 'assistant':
        [role, parts] = ['model', contentParts(message.content, media)];
        for (const call of message.tool_calls ?? []) {
          toolNames.set(call.id, call.function.name);
          parts.push({ functionCall: { name: call.function.name, args: parseToolArguments(call.function.arguments) } });
        }
        break;
      case 'tool': {
        const name = toolNames.get(message.tool_call_id ?? '') ?? message.name ?? message.tool_call_id ?? '';
        [role, parts] = ['user', [{ functionResponse: { name, response: { content: textOfContent(message.content) } } }]];
        break;
      }
      default:
        throw new ConvertRequestError(`message role ${message.role} is not supported by Gemini channels`);
    }
    if (parts.length === 0) continue;
    const previous = contents[contents.length - 1];
    if (previous && previous.role === role) previous.parts.push(...parts);
    else contents.push({ role, parts });
  }
  return system.length > 0 ? { contents, systemInstruction: { parts: system } } : { contents };
}
