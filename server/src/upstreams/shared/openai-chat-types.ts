/** The parts of an OpenAI chat request that converting adapters read. Unknown fields may be present. */

export interface OpenAITextPart {
  type: 'text';
  text: string;
}

export interface OpenAIImagePart {
  type: 'image_url';
  image_url: string | { url: string; detail?: string };
}

export type OpenAIContentPart = OpenAITextPart | OpenAIImagePart | { type: string; [key: string]: unknown };

export interface OpenAIToolCall {
  id: string;
  type?: 'function';
  function: { name: string; arguments?: string };
}

export interface OpenAIChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function' | string;
  content?: string | OpenAIContentPart[] | null;
  name?: string;
  tool_calls?: OpenAIToolCall[] | null;
  tool_call_id?: string;
  reasoning_content?: string | null;
}

export interface OpenAIFunctionDefinition {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  strict?: boolean;
}

export interface OpenAITool {
  type: 'function' | string;
  function: OpenAIFunctionDefinition;
}

export type OpenAIToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

export interface OpenAIChatRequest {
  model?: string;
  messages: OpenAIChatMessage[];
  stream?: boolean;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  top_k?: number | null;
  n?: number | null;
  stop?: string | string[] | null;
  seed?: number | null;
  presence_penalty?: number | null;
  frequency_penalty?: number | null;
  tools?: OpenAITool[] | null;
  tool_choice?: OpenAIToolChoice | null;
  parallel_tool_calls?: boolean | null;
  functions?: OpenAIFunctionDefinition[] | null;
  response_format?: {
    type: 'text' | 'json_object' | 'json_schema';
    json_schema?: { name?: string; schema?: Record<string, unknown> };
  } | null;
  user?: string;
  [key: string]: unknown;
}

/** The text of a message's content: a string, or its text parts joined. */
export function textOfContent(content: OpenAIChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content) if (part.type === 'text' && typeof part.text === 'string') text += part.text;
  return text;
}

export function imageUrlOf(part: OpenAIImagePart): string {
  return typeof part.image_url === 'string' ? part.image_url : (part.image_url?.url ?? '');
}

/** `stop` as a list, empty when absent. */
export function stopSequences(stop: OpenAIChatRequest['stop']): string[] {
  if (typeof stop === 'string') return stop === '' ? [] : [stop];
  return Array.isArray(stop) ? stop.filter((value) => typeof value === 'string' && value !== '') : [];
}

/** max_completion_tokens is the newer spelling; either bounds the answer. */
export function maxOutputTokens(request: OpenAIChatRequest): number | undefined {
  const value = request.max_completion_tokens ?? request.max_tokens;
  return typeof value === 'number' && value > 0 ? value : undefined;
}

/** Chat function arguments are a JSON string; upstreams want an object. Malformed JSON becomes {}. */
export function parseToolArguments(argumentsJson: string | undefined): Record<string, unknown> {
  if (!argumentsJson) return {};
  try {
    const parsed: unknown = JSON.parse(argumentsJson);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
