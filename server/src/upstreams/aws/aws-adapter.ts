import { createAnthropicAdapter } from '../anthropic/anthropic-adapter';
import type { OpenAIChatRequest } from '../shared/openai-chat-types';
import { postRequest, splitBaseUrl, upstreamTarget } from '../shared/upstream-url';
import type { RelayMode, UpstreamAdapter, UpstreamSettings } from '../upstream-adapter';
import { UnsupportedRelayModeError } from '../upstream-errors';
import { parseAwsKey } from './aws-key';
import { awsModelId } from './aws-model-ids';
import { callBedrock } from './bedrock-call';
import { mapBedrockError } from './bedrock-errors';
import { buildBedrockBody } from './build-bedrock-body';

/**
 * Type 33: OpenAI chat in, Claude on AWS Bedrock upstream (InvokeModel / InvokeModelWithResponseStream through the
 * official SDK, SigV4-signed with the channel's `AK|SK|region`), OpenAI chat out through the anthropic/ converters
 * (docs/providers.md, AWS Claude).
 */
export function createAwsAdapter(settings: UpstreamSettings): UpstreamAdapter {
  const relayModes = new Set<RelayMode>(['chat']);
  const claude = createAnthropicAdapter(settings);
  return {
    name: 'aws',
    relayModes,
    // Claude on Bedrock takes base64 images only: the relay fetches image URLs.
    needsRemoteMedia: true,
    buildRequest(input) {
      if (!relayModes.has(input.relayMode)) throw new UnsupportedRelayModeError(input.relayMode, 'aws');
      const credentials = parseAwsKey(input.channel.key);
      const modelId = awsModelId(input.upstreamModel);
      const body = JSON.stringify(buildBedrockBody((input.body ?? {}) as OpenAIChatRequest, input.upstreamModel, input.media));
      const base = input.channel.baseUrl || `https://bedrock-runtime.${credentials.region}.amazonaws.com`;
      const operation = input.isStream ? 'invoke-with-response-stream' : 'invoke';
      // What the SDK sends (for logs and header overrides); `send` makes the signed call itself.
      return postRequest(
        upstreamTarget(splitBaseUrl(base), `/model/${encodeURIComponent(modelId)}/${operation}`),
        { 'content-type': 'application/json', accept: 'application/json' },
        body,
      );
    },
    send(input, request, context) {
      const body = typeof request.body === 'string' ? request.body : Buffer.from(request.body ?? '').toString('utf8');
      return callBedrock(
        {
          credentials: parseAwsKey(input.channel.key),
          endpoint: input.channel.baseUrl || null,
          modelId: awsModelId(input.upstreamModel),
          body,
          stream: input.isStream,
        },
        context,
      );
    },
    parseResponse(input, response) {
      if (response.status < 200 || response.status >= 300) return mapBedrockError(response.status, response.body);
      return claude.parseResponse(input, response);
    },
    createStreamTransformer(input) {
      return claude.createStreamTransformer(input);
    },
    mapError: mapBedrockError,
  };
}
