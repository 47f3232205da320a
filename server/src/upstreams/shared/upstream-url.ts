import type { UpstreamRequest } from '../upstream-adapter';
import { MissingBaseUrlError } from '../upstream-errors';

export interface SplitBaseUrl {
  readonly origin: string;
  /** Path prefix of the base URL without a trailing slash, e.g. '/openai' or ''. */
  readonly prefix: string;
}

/**
 * Splits a channel base URL with string operations: `new URL()` costs more than the rest of request
 * building, and base URLs are plain `scheme://host[:port][/prefix]` strings entered by an admin.
 */
export function splitBaseUrl(baseUrl: string): SplitBaseUrl {
  let end = baseUrl.length;
  while (end > 0 && baseUrl.charCodeAt(end - 1) === 47 /* / */) end--;
  const trimmed = end === baseUrl.length ? baseUrl : baseUrl.slice(0, end);
  const schemeEnd = trimmed.indexOf('://');
  const pathStart = trimmed.indexOf('/', schemeEnd === -1 ? 0 : schemeEnd + 3);
  if (pathStart === -1) return { origin: trimmed, prefix: '' };
  return { origin: trimmed.slice(0, pathStart), prefix: trimmed.slice(pathStart) };
}

/**
 * The channel's base URL, or the type's default when the channel has none. Types without
 * a default (Custom, Azure, unknown compatible types) fail locally instead of calling a relative URL.
 */
export function channelBaseUrl(baseUrl: string | null, defaultBaseUrl: string, adapterName: string): string {
  const chosen = baseUrl ? baseUrl : defaultBaseUrl;
  if (!chosen) throw new MissingBaseUrlError(adapterName);
  return chosen;
}

/** `pathAndQuery` must start with '/'. */
export function upstreamTarget(base: SplitBaseUrl, pathAndQuery: string): Pick<UpstreamRequest, 'origin' | 'path' | 'url'> {
  const path = base.prefix + pathAndQuery;
  return { origin: base.origin, path, url: base.origin + path };
}

/**
 * A POST to `target` with every field named. `{ ...upstreamTarget(…), method, headers, body }` reads the same but, on
 * this V8, an object literal that spreads and then adds properties gets a new hidden class each time it is evaluated
 * (~2 µs and a map to collect per request; docs/benchmark.md, 2026-11-25).
 */
export function postRequest(
  target: Pick<UpstreamRequest, 'origin' | 'path' | 'url'>,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
): UpstreamRequest {
  return { origin: target.origin, path: target.path, url: target.url, method: 'POST', headers, body };
}

export function withQuery(path: string, query: string): string {
  return query ? `${path}?${query}` : path;
}
