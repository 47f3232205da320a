import { channelBaseUrl, splitBaseUrl, upstreamTarget } from '../shared/upstream-url';
import type { UpstreamRequest, UpstreamRequestInput } from '../upstream-adapter';

export const GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com';
export const GEMINI_DEFAULT_VERSION = 'v1beta';

/**
 * The API version: the channel's `other`, else v1beta. v0.3.0.0 defaulted to v1 except for a built-in list
 * of 1.5 models; v1 lacks systemInstruction and tools for several models, and new-api itself moved
 * the default to v1beta in v0.3.1.3. An operator who needs v1 sets it on the channel.
 */
export function geminiApiVersion(other: string | null): string {
  return other ? other : GEMINI_DEFAULT_VERSION;
}

/** `{base}/{version}/models/{model}:generateContent`, or `:streamGenerateContent?alt=sse` for SSE framing. */
export function geminiTarget(input: UpstreamRequestInput): Pick<UpstreamRequest, 'origin' | 'path' | 'url'> {
  const baseUrl = channelBaseUrl(input.channel.baseUrl, GEMINI_BASE_URL, 'gemini');
  const action = input.isStream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  return upstreamTarget(
    splitBaseUrl(baseUrl),
    `/${geminiApiVersion(input.channel.other)}/models/${encodeURIComponent(input.upstreamModel)}:${action}`,
  );
}

/** The key travels in `x-goog-api-key`, never in the URL where proxies would log it. */
export function geminiHeaders(input: UpstreamRequestInput): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-goog-api-key': input.channel.key };
  const accept = input.clientHeaders?.accept ?? (input.isStream ? 'text/event-stream' : undefined);
  if (accept) headers.accept = accept;
  return headers;
}
