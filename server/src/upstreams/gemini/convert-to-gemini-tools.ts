import type { OpenAIChatRequest, OpenAIFunctionDefinition } from '../shared/openai-chat-types';
import type { GeminiRequest } from './gemini-types';

/**
 * Gemini's Schema is an OpenAPI subset (https://ai.google.dev/api/caching#Schema) that rejects some JSON
 * Schema keywords OpenAI clients send, such as `$schema` and `additionalProperties` (zod-to-json-schema
 * emits both). They are removed at every depth.
 */
export function cleanGeminiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(cleanGeminiSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$schema' || key === 'additionalProperties' || key === 'strict') continue;
    out[key] =
      key === 'properties' && typeof value === 'object' && value !== null
        ? Object.fromEntries(Object.entries(value).map(([name, property]) => [name, cleanGeminiSchema(property)]))
        : cleanGeminiSchema(value);
  }
  return out;
}

function declaration(fn: OpenAIFunctionDefinition): Record<string, unknown> {
  const out: Record<string, unknown> = { name: fn.name };
  if (fn.description) out.description = fn.description;
  if (fn.parameters && Object.keys(fn.parameters.properties ?? {}).length > 0) out.parameters = cleanGeminiSchema(fn.parameters);
  return out;
}

/** tools (or legacy functions) → one functionDeclarations tool. */
export function convertToGeminiTools(request: OpenAIChatRequest): GeminiRequest['tools'] {
  const functions = Array.isArray(request.tools)
    ? request.tools.filter((tool) => tool.type === 'function' && tool.function).map((tool) => tool.function)
    : Array.isArray(request.functions)
      ? request.functions
      : [];
  return functions.length > 0 ? [{ functionDeclarations: functions.map(declaration) }] : undefined;
}

/** tool_choice → toolConfig (https://ai.google.dev/gemini-api/docs/function-calling#function_calling_modes). */
export function convertToGeminiToolConfig(toolChoice: OpenAIChatRequest['tool_choice']): GeminiRequest['toolConfig'] {
  if (toolChoice === 'none') return { functionCallingConfig: { mode: 'NONE' } };
  if (toolChoice === 'required') return { functionCallingConfig: { mode: 'ANY' } };
  if (typeof toolChoice === 'object' && toolChoice !== null && toolChoice.function?.name) {
    return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [toolChoice.function.name] } };
  }
  return undefined;
}
