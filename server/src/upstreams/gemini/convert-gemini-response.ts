import type { OpenAIError, TokenUsage } from '../upstream-adapter';
import type { GeminiCandidate, GeminiResponse } from './gemini-types';
import { mapGeminiFinishReason } from './map-gemini-finish-reason';
import { mapGeminiUsage } from './map-gemini-usage';

export interface CandidateDelta {
  text: string;
  reasoning: string;
  toolCalls: Array<{ name: string; arguments: string }>;
}

/** Every part of a candidate: text, thought summaries and function calls (new-api read only the first part). */
export function readCandidate(candidate: GeminiCandidate): CandidateDelta {
  const delta: CandidateDelta = { text: '', reasoning: '', toolCalls: [] };
  for (const part of candidate.content?.parts ?? []) {
    if (typeof part.text === 'string') {
      if (part.thought === true) delta.reasoning += part.text;
      else delta.text += part.text;
    } else if (part.functionCall) {
      delta.toolCalls.push({ name: part.functionCall.name, arguments: JSON.stringify(part.functionCall.args ?? {}) });
    }
  }
  return delta;
}

/** Gemini answers 200 with no candidates when it blocks the prompt itself (new-api's message: "No candidates returned"). */
export function noCandidatesError(response: GeminiResponse): OpenAIError {
  const reason = response.promptFeedback?.blockReason;
  return {
    message: reason ? `No candidates returned (prompt blocked: ${reason})` : 'No candidates returned',
    type: 'server_error',
    param: '',
    code: 500,
  };
}

/** A generateContent answer → an OpenAI chat.completion, one choice per candidate. */
export function convertGeminiResponse(
  response: GeminiResponse,
  identity: { id: string; created: number; model: string },
  newId: () => string,
): { body: Record<string, unknown>; usage: TokenUsage | null; text: string } {
  let counted = '';
  const choices = (response.candidates ?? []).map((candidate, position) => {
    const { text, reasoning, toolCalls } = readCandidate(candidate);
    const message: Record<string, unknown> = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text };
    if (reasoning) message.reasoning_content = reasoning;
    if (toolCalls.length > 0) {
      message.tool_calls = toolCalls.map((call) => ({ id: `call_${newId()}`, type: 'function', function: call }));
    }
    counted += reasoning + text + toolCalls.map((call) => call.name + call.arguments).join('');
    return {
      index: candidate.index ?? position,
      message,
      logprobs: null,
      finish_reason: mapGeminiFinishReason(candidate.finishReason ?? 'STOP', toolCalls.length > 0),
    };
  });
  const usage = mapGeminiUsage(response.usageMetadata);
  return {
    body: {
      id: identity.id,
      object: 'chat.completion',
      created: identity.created,
      model: identity.model,
      choices,
      usage: usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    },
    usage,
    text: counted,
  };
}
