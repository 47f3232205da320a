/**
 * Claude stop_reason → OpenAI finish_reason (https://docs.anthropic.com/en/api/handling-stop-reasons).
 * new-api mapped only end_turn/stop_sequence and passed `max_tokens` and `tool_use` through, which
 * OpenAI clients do not recognise; they are `length` and `tool_calls` here.
 */
export function mapAnthropicStopReason(stopReason: string | null | undefined): string | null {
  switch (stopReason) {
    case null:
    case undefined:
      return null;
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      return stopReason;
  }
}
