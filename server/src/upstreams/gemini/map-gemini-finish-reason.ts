/**
 * Gemini finishReason → OpenAI finish_reason (https://ai.google.dev/api/generate-content#FinishReason).
 * new-api answered `stop` for everything, so truncated and blocked answers looked complete.
 */
export function mapGeminiFinishReason(finishReason: string | undefined, hasToolCalls: boolean): string | null {
  if (!finishReason) return null;
  if (hasToolCalls) return 'tool_calls';
  switch (finishReason) {
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
      return 'content_filter';
    default:
      return 'stop';
  }
}
