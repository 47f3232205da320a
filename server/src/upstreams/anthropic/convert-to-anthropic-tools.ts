import type { OpenAIChatRequest } from '../shared/openai-chat-types';
import type { AnthropicTool, AnthropicToolChoice } from './anthropic-types';

/** Function tools → Claude tools; the JSON schema is Claude's input_schema, which must be an object schema. */
export function convertToAnthropicTools(tools: OpenAIChatRequest['tools']): AnthropicTool[] | undefined {
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  return tools
    .filter((tool) => tool.type === 'function' && tool.function)
    .map((tool) => {
      const schema = tool.function.parameters ?? {};
      const converted: AnthropicTool = { name: tool.function.name, input_schema: { type: 'object', ...schema } };
      if (tool.function.description) converted.description = tool.function.description;
      return converted;
    });
}

/**
 * tool_choice and parallel_tool_calls → Claude tool_choice (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#controlling-claudes-output).
 * new-api did not map them, so `required` and a named function were silently ignored.
 */
export function convertToAnthropicToolChoice(request: OpenAIChatRequest): AnthropicToolChoice | undefined {
  const choice = request.tool_choice;
  const disableParallel = request.parallel_tool_calls === false ? { disable_parallel_tool_use: true } : {};
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any', ...disableParallel };
  if (typeof choice === 'object' && choice !== null && choice.function?.name) {
    return { type: 'tool', name: choice.function.name, ...disableParallel };
  }
  if (choice === 'auto' || request.parallel_tool_calls === false) return { type: 'auto', ...disableParallel };
  return undefined;
}
