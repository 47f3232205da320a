import { mapUpstreamError, parseJsonObject, unreadableResponseError } from '../shared/map-upstream-error';
import type { CompatibleProfile } from '../openai-compatible/compatible-profile';
import { createOpenAICompatibleAdapter } from '../openai-compatible/create-openai-compatible-adapter';
import { convertedSuccess, type RelayMode, type UpstreamAdapter, type UpstreamSettings } from '../upstream-adapter';
import { UnsupportedRelayModeError } from '../upstream-errors';
import { cloudflareError, cloudflareRunTarget, cloudflareTarget } from './cloudflare-api';
import { buildCloudflareCompletion, CloudflareCompletionStream, convertCloudflareCompletion } from './cloudflare-completions';
import { buildCloudflareTranscription, convertCloudflareTranscription } from './cloudflare-transcriptions';

/** Chat and embeddings: Workers AI's OpenAI-compatible endpoints, answered and streamed as OpenAI does. */
const compatibleProfile: CompatibleProfile = {
  name: 'cloudflare',
  defaultBaseUrl: 'https://api.cloudflare.com',
  relayModes: new Set<RelayMode>(['chat', 'embeddings']),
  streamUsage: 'remove',
  target: (input) => cloudflareTarget(input, input.relayMode === 'chat' ? 'v1/chat/completions' : 'v1/embeddings'),
};

const RUN_MODES: ReadonlySet<RelayMode> = new Set<RelayMode>(['completions', 'audio-transcriptions']);

/**
 * Type 39, Cloudflare Workers AI (docs/providers.md, Cloudflare): the account id is the channel's `other`; chat and
 * embeddings use the OpenAI-compatible `/ai/v1/...` endpoints, completions and transcriptions the model's `/ai/run`.
 */
export function createCloudflareAdapter(settings: UpstreamSettings): UpstreamAdapter {
  const compatible = createOpenAICompatibleAdapter(compatibleProfile, settings);
  const relayModes = new Set<RelayMode>([...compatibleProfile.relayModes, ...RUN_MODES]);
  const mapError = (status: number, body: Uint8Array) => {
    const parsed = parseJsonObject(body);
    return (parsed && cloudflareError(status, parsed)) ?? mapUpstreamError(status, body);
  };
  return {
    name: 'cloudflare',
    relayModes,
    needsRemoteMedia: false,
    buildRequest(input) {
      if (!relayModes.has(input.relayMode)) throw new UnsupportedRelayModeError(input.relayMode, 'cloudflare');
      if (compatibleProfile.relayModes.has(input.relayMode)) return compatible.buildRequest(input);
      const auth = { authorization: `Bearer ${input.channel.key}` };
      if (input.relayMode === 'completions') {
        const body = JSON.stringify(buildCloudflareCompletion(input.body ?? {}, input.isStream));
        const accept: Record<string, string> = input.isStream ? { accept: 'text/event-stream' } : {};
        return { ...cloudflareRunTarget(input), method: 'POST', headers: { 'content-type': 'application/json', ...auth, ...accept }, body };
      }
      const { body, contentType } = buildCloudflareTranscription(input);
      return { ...cloudflareRunTarget(input), method: 'POST', headers: { 'content-type': contentType, ...auth }, body };
    },
    parseResponse(input, response) {
      if (response.status < 200 || response.status >= 300) return mapError(response.status, response.body);
      if (compatibleProfile.relayModes.has(input.relayMode)) return compatible.parseResponse(input, response);
      const parsed = parseJsonObject(response.body);
      if (!parsed) return unreadableResponseError('not a JSON object');
      if (parsed.success === false)
        return cloudflareError(response.status, parsed) ?? unreadableResponseError('success false without errors');
      const result = typeof parsed.result === 'object' && parsed.result !== null ? (parsed.result as Record<string, unknown>) : {};
      if (input.relayMode === 'completions') {
        const identity = { id: `cmpl-${settings.newId()}`, created: Math.floor(settings.now() / 1000), model: input.upstreamModel };
        return convertedSuccess(response.status, convertCloudflareCompletion(result, identity));
      }
      return convertCloudflareTranscription(response.status, result, input);
    },
    createStreamTransformer(input) {
      if (input.relayMode === 'completions') return new CloudflareCompletionStream(input, settings);
      return compatible.createStreamTransformer(input);
    },
    mapError,
  };
}
