import { maxOutputTokens, type OpenAIChatRequest, stopSequences } from '../shared/openai-chat-types';
import type { InlineMedia } from '../upstream-adapter';
import { convertToGeminiContents } from './convert-to-gemini-contents';
import { cleanGeminiSchema, convertToGeminiToolConfig, convertToGeminiTools } from './convert-to-gemini-tools';
import type { GeminiRequest } from './gemini-types';

export const GEMINI_HARM_CATEGORIES = [
  'HARM_CATEGORY_HARASSMENT',
  'HARM_CATEGORY_HATE_SPEECH',
  'HARM_CATEGORY_SEXUALLY_EXPLICIT',
  'HARM_CATEGORY_DANGEROUS_CONTENT',
] as const;

/** OpenAI sampling fields → generationConfig; only fields the client set, zero values included. */
function generationConfig(request: OpenAIChatRequest): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  const copy = (from: keyof OpenAIChatRequest, to: string) => {
    if (typeof request[from] === 'number') config[to] = request[from];
  };
  copy('temperature', 'temperature');
  copy('top_p', 'topP');
  copy('top_k', 'topK');
  copy('n', 'candidateCount');
  copy('seed', 'seed');
  copy('presence_penalty', 'presencePenalty');
  copy('frequency_penalty', 'frequencyPenalty');
  const maxTokens = maxOutputTokens(request);
  if (maxTokens !== undefined) config.maxOutputTokens = maxTokens;
  // new-api did not map stop; Gemini honours up to 5 stop sequences.
  const stop = stopSequences(request.stop);
  if (stop.length > 0) config.stopSequences = stop;
  const format = request.response_format;
  if (format?.type === 'json_object' || format?.type === 'json_schema') {
    config.responseMimeType = 'application/json';
    if (format.type === 'json_schema' && format.json_schema?.schema) config.responseSchema = cleanGeminiSchema(format.json_schema.schema);
  }
  return config;
}

/** An OpenAI chat request → a Gemini generateContent request (docs/providers.md, Gemini). */
export function buildGeminiRequest(
  request: OpenAIChatRequest,
  safetyThreshold: string,
  media?: ReadonlyMap<string, InlineMedia>,
): GeminiRequest {
  const { contents, systemInstruction } = convertToGeminiContents(request.messages ?? [], media);
  const out: GeminiRequest = {
    contents,
    safetySettings: GEMINI_HARM_CATEGORIES.map((category) => ({ category, threshold: safetyThreshold })),
  };
  if (systemInstruction) out.systemInstruction = systemInstruction;
  const config = generationConfig(request);
  if (Object.keys(config).length > 0) out.generationConfig = config;
  const tools = convertToGeminiTools(request);
  if (tools) {
    out.tools = tools;
    const toolConfig = convertToGeminiToolConfig(request.tool_choice);
    if (toolConfig) out.toolConfig = toolConfig;
  }
  return out;
}
