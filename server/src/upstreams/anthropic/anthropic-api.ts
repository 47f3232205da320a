import { channelBaseUrl, splitBaseUrl, upstreamTarget } from '../shared/upstream-url';
import type { UpstreamRequest, UpstreamRequestInput } from '../upstream-adapter';

export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_DEFAULT_VERSION = '2023-06-01';

/**
 * Every model goes to /v1/messages. new-api sent names other than `claude-3*` to the legacy
 * /v1/complete, which misroutes claude-sonnet-4, claude-opus-4 and later; Messages also serves claude-2.x.
 */
export function anthropicTarget(input: UpstreamRequestInput): Pick<UpstreamRequest, 'origin' | 'path' | 'url'> {
  const baseUrl = channelBaseUrl(input.channel.baseUrl, ANTHROPIC_BASE_URL, 'anthropic');
  return upstreamTarget(splitBaseUrl(baseUrl), '/v1/messages');
}

/** `anthropic-version` (and `anthropic-beta`) are the client headers Claude channels forward (new-api forwarded only the version). */
export function anthropicHeaders(input: UpstreamRequestInput): Record<string, string> {
  const client = input.clientHeaders;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-api-key': input.channel.key,
    'anthropic-version': client?.anthropicVersion || ANTHROPIC_DEFAULT_VERSION,
  };
  if (client?.anthropicBeta) headers['anthropic-beta'] = client.anthropicBeta;
  const accept = client?.accept ?? (input.isStream ? 'text/event-stream' : undefined);
  if (accept) headers.accept = accept;
  return headers;
}
