import { ALL_RELAY_MODES_BUT_RERANK, type CompatibleProfile } from '../openai-compatible/compatible-profile';
import { createOpenAICompatibleAdapter } from '../openai-compatible/create-openai-compatible-adapter';
import type { UpstreamAdapter, UpstreamSettings } from '../upstream-adapter';
import { OPENAI_BASE_URL, openAIAuthHeaders } from './openai-api';
import { rewriteReasoningModelBody } from './rewrite-reasoning-model-body';

/** Type 1. Rerank is not an OpenAI API (convert_request_failed, as in new-api). */
export const openAIProfile: CompatibleProfile = {
  name: 'openai',
  defaultBaseUrl: OPENAI_BASE_URL,
  relayModes: ALL_RELAY_MODES_BUT_RERANK,
  streamUsage: 'force',
  authHeaders: openAIAuthHeaders,
  rewriteBody: (body, input) => (input.relayMode === 'chat' ? rewriteReasoningModelBody(body, input.upstreamModel) : null),
};

export function createOpenAIAdapter(settings: UpstreamSettings): UpstreamAdapter {
  return createOpenAICompatibleAdapter(openAIProfile, settings);
}
