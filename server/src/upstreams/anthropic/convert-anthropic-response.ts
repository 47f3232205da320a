import type { ConvertedAnswer } from '../upstream-adapter';
import type { AnthropicResponse } from './anthropic-types';
import { mapAnthropicStopReason } from './map-anthropic-stop-reason';
import { mapAnthropicUsage } from './map-anthropic-usage';

export type ConvertedChatCompletion = ConvertedAnswer;

/**
 * A Claude message → an OpenAI chat.completion. All text blocks are joined (new-api returned only the
 * first block); thinking becomes `reasoning_content`; tool_use blocks become tool_calls.
 */
export function convertAnthropicResponse(response: AnthropicResponse, createdSeconds: number): ConvertedChatCompletion {
  let text = '';
  let reasoning = '';
  const toolCalls: Array<Record<string, unknown>> = [];
  for (const block of response.content ?? []) {
    if (block.type === 'text' && typeof block.text === 'string') text += block.text;
    else if (block.type === 'thinking' && typeof block.thinking === 'string') reasoning += block.thinking;
    else if (block.type === 'tool_use') {
      toolCalls.push({
        id: block.id,
        type: 'function',
        function: { name: block.name, arguments: JSON.stringify(block.input ?? {}) },
      });
    }
  }
  const message: Record<string, unknown> = { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text };
  if (reasoning) message.reasoning_content = reasoning;
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const usage = mapAnthropicUsage(response.usage ?? {});
  const body: Record<string, unknown> = {
    id: response.id,
    object: 'chat.completion',
    created: createdSeconds,
    model: response.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: mapAnthropicStopReason(response.stop_reason) }],
    usage: usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
  let counted = reasoning + text;
  for (const call of toolCalls)
    counted += (call.function as { name: string; arguments: string }).name + (call.function as { arguments: string }).arguments;
  return { body, usage, text: counted };
}
