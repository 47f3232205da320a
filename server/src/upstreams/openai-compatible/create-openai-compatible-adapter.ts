import { encodeMultipart } from '../shared/encode-multipart';
import { mapUpstreamError } from '../shared/map-upstream-error';
import { channelBaseUrl, postRequest, splitBaseUrl, upstreamTarget, withQuery } from '../shared/upstream-url';
import type { UpstreamAdapter, UpstreamRequest, UpstreamRequestInput, UpstreamResponse, UpstreamSettings } from '../upstream-adapter';
import { UnsupportedRelayModeError } from '../upstream-errors';
import { buildOpenAICompatibleBody } from './build-openai-compatible-body';
import { bearerAuth, type CompatibleProfile } from './compatible-profile';
import { OpenAICompatibleStreamTransformer } from './openai-compatible-stream-transformer';
import { parseOpenAICompatibleResponse } from './parse-openai-compatible-response';

const CLOUDFLARE_GATEWAY = 'https://gateway.ai.cloudflare.com';

/** Base URL + client path + client query; Cloudflare's AI Gateway already ends in the provider, so /v1 goes. */
export function defaultTarget(input: UpstreamRequestInput, baseUrl: string): Pick<UpstreamRequest, 'origin' | 'path' | 'url'> {
  let path = input.path;
  if (baseUrl.startsWith(CLOUDFLARE_GATEWAY) && path.startsWith('/v1/')) path = path.slice(3);
  return upstreamTarget(splitBaseUrl(baseUrl), withQuery(path, input.query));
}

/** Headers for an OpenAI-protocol request: only Accept comes from the client. */
export function openAIRequestHeaders(
  input: UpstreamRequestInput,
  contentType: string,
  auth: Record<string, string>,
): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': contentType, ...auth };
  const accept = input.clientHeaders?.accept ?? (input.isStream ? 'text/event-stream' : undefined);
  if (accept) headers.accept = accept;
  return headers;
}

/** The body and content type of an OpenAI-protocol request: multipart for audio uploads, else JSON. */
export function openAIRequestBody(
  input: UpstreamRequestInput,
  profile: CompatibleProfile,
  settings: UpstreamSettings,
): { body: string | Uint8Array; contentType: string } {
  if (input.multipart) return encodeMultipart(input.multipart, { model: input.upstreamModel }, `tollgate-${settings.newId()}`);
  const policy = profile.streamUsage === 'force' ? (settings.forceStreamUsage ? 'force' : 'keep') : 'remove';
  const rewrite = profile.rewriteBody && input.body ? profile.rewriteBody(input.body, input) : null;
  return { body: buildOpenAICompatibleBody(input, policy, rewrite), contentType: 'application/json' };
}

/** An adapter for any upstream that speaks OpenAI's HTTP API, described by its profile. */
export function createOpenAICompatibleAdapter(profile: CompatibleProfile, settings: UpstreamSettings): UpstreamAdapter {
  const target = profile.target ?? defaultTarget;
  const auth = profile.authHeaders ?? bearerAuth;
  return {
    name: profile.name,
    relayModes: profile.relayModes,
    needsRemoteMedia: false,
    buildRequest(input) {
      if (!profile.relayModes.has(input.relayMode)) throw new UnsupportedRelayModeError(input.relayMode, profile.name);
      const { body, contentType } = openAIRequestBody(input, profile, settings);
      // postRequest names every field: `{ ...target(…), method, … }` made a new hidden class per request.
      const to = target(input, channelBaseUrl(input.channel.baseUrl, profile.defaultBaseUrl, profile.name));
      return postRequest(to, openAIRequestHeaders(input, contentType, auth(input.channel)), body);
    },
    parseResponse(input: UpstreamRequestInput, response: UpstreamResponse) {
      return parseOpenAICompatibleResponse(input.relayMode, response);
    },
    createStreamTransformer(input) {
      return new OpenAICompatibleStreamTransformer(input, settings);
    },
    mapError: mapUpstreamError,
  };
}
