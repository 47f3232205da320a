import { rewriteReasoningModelBody } from '../openai/rewrite-reasoning-model-body';
import { ALL_RELAY_MODES_BUT_RERANK, type CompatibleProfile } from '../openai-compatible/compatible-profile';
import { createOpenAICompatibleAdapter } from '../openai-compatible/create-openai-compatible-adapter';
import type { UpstreamAdapter, UpstreamSettings } from '../upstream-adapter';
import { azureTarget } from './azure-urls';

/**
 * Type 3. The OpenAI protocol on a deployment URL with an `api-key` header. stream_options is removed:
 * api-versions before 2024-09-01-preview reject it, so stream usage is counted locally.
 */
export const azureProfile: CompatibleProfile = {
  name: 'azure',
  defaultBaseUrl: '',
  relayModes: ALL_RELAY_MODES_BUT_RERANK,
  streamUsage: 'remove',
  target: azureTarget,
  authHeaders: (channel) => ({ 'api-key': channel.key }),
  rewriteBody: (body, input) => (input.relayMode === 'chat' ? rewriteReasoningModelBody(body, input.upstreamModel) : null),
};

export function createAzureAdapter(settings: UpstreamSettings): UpstreamAdapter {
  return createOpenAICompatibleAdapter(azureProfile, settings);
}
