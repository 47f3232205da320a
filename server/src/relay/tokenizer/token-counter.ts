import type * as JsTiktoken from 'js-tiktoken' with { 'resolution-mode': 'import' };

// js-tiktoken ships CommonJS (dist/index.cjs) behind ESM-typed declarations; load the CJS build, keep the types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { getEncoding } = require('js-tiktoken') as typeof JsTiktoken;
type Tiktoken = JsTiktoken.Tiktoken;

/**
 * Local token counting, tiktoken-compatible as new-api counts, for the pre-consume bound and for answers whose
 * upstream reported no usage. Encoders load lazily (a few hundred ms each) and are shared by the process.
 */
type EncodingName = 'cl100k_base' | 'o200k_base';

const encoders = new Map<EncodingName, Tiktoken>();

function encoder(name: EncodingName): Tiktoken {
  let found = encoders.get(name);
  if (!found) {
    found = getEncoding(name);
    encoders.set(name, found);
  }
  return found;
}

/** o200k for gpt-4o* and chatgpt-4o*, cl100k for everything else (unknown models included). */
export function encodingFor(model: string): EncodingName {
  return model.startsWith('gpt-4o') || model.startsWith('chatgpt-4o') || model.startsWith('o1') ? 'o200k_base' : 'cl100k_base';
}

/** Loads the encoders ahead of the first request that needs them. */
export function warmTokenizers(): void {
  encoder('cl100k_base');
  encoder('o200k_base');
}

export function countTextTokens(text: string, model: string): number {
  if (!text) return 0;
  return encoder(encodingFor(model)).encode(text, 'all').length;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Tokens of one content part list: text parts counted, images at new-api's fixed cost when not measured. */
function contentTokens(content: unknown, model: string): number {
  if (typeof content === 'string') return countTextTokens(content, model);
  if (!Array.isArray(content)) return 0;
  let tokens = 0;
  for (const part of content) {
    if (!isObject(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') tokens += countTextTokens(part.text, model);
    else if (part.type === 'image_url') {
      const image = isObject(part.image_url) ? part.image_url : null;
      // new-api downloads the image to measure it; the relay never fetches client URLs on the hot path and
      // charges the low-detail figure, or new-api's "media counting disabled" 1000 for other details.
      tokens += image?.detail === 'low' ? 85 : model.startsWith('glm-4v') ? 1047 : 1000;
    }
  }
  return tokens;
}

/**
 * Prompt tokens of a chat request: per message 3 + role + content (+1 + name), then 3. Tools add 8 plus
 * every tool's name, description and parameters (new-api counted only the last tool: a bug).
 */
export function countChatPromptTokens(body: Json, model: string): number {
  const perMessage = model === 'gpt-3.5-turbo-0301' ? 4 : 3;
  const perName = model === 'gpt-3.5-turbo-0301' ? -1 : 1;
  let tokens = 0;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  for (const message of messages) {
    if (!isObject(message)) continue;
    tokens += perMessage;
    if (typeof message.role === 'string') tokens += countTextTokens(message.role, model);
    tokens += contentTokens(message.content, model);
    if (typeof message.name === 'string') tokens += perName + countTextTokens(message.name, model);
  }
  tokens += 3;
  const tools = Array.isArray(body.tools) ? body.tools : [];
  if (tools.length > 0) {
    tokens += 8;
    for (const tool of tools) {
      const fn = isObject(tool) && isObject(tool.function) ? tool.function : null;
      if (!fn) continue;
      if (typeof fn.name === 'string') tokens += countTextTokens(fn.name, model);
      if (typeof fn.description === 'string') tokens += countTextTokens(fn.description, model);
      if (fn.parameters !== undefined) tokens += countTextTokens(JSON.stringify(fn.parameters), model);
    }
  }
  return tokens;
}

/** A string or an array of strings (completions prompt, embeddings and moderations input); token arrays count their length. */
export function countInputTokens(input: unknown, model: string): number {
  if (typeof input === 'string') return countTextTokens(input, model);
  if (!Array.isArray(input)) return 0;
  if (input.every((item) => typeof item === 'number')) return input.length;
  let tokens = 0;
  for (const item of input) {
    if (typeof item === 'string') tokens += countTextTokens(item, model);
    else if (Array.isArray(item)) tokens += item.length;
  }
  return tokens;
}
