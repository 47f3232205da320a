import type { JsonObject, RelayMode, UpstreamChannel, UpstreamRequest, UpstreamRequestInput } from '../upstream-adapter';

/**
 * What makes one OpenAI-compatible upstream different from another. A new compatible channel type is one
 * profile: a default base URL, its modes and, only if needed, its own target, auth or body rewrite.
 */
export interface CompatibleProfile {
  readonly name: string;
  /** '' when the channel must set a base URL (Custom, Azure). */
  readonly defaultBaseUrl: string;
  readonly relayModes: ReadonlySet<RelayMode>;
  /**
   * `force`: streams ask for the usage chunk (stream_options.include_usage=true) when FORCE_STREAM_OPTION is
   * on; `remove`: the upstream may reject stream_options, so it is dropped.
   */
  readonly streamUsage: 'force' | 'remove';
  /** Where to send the request; the default is base URL + client path + client query. */
  readonly target?: (input: UpstreamRequestInput, baseUrl: string) => Pick<UpstreamRequest, 'origin' | 'path' | 'url'>;
  /** Auth headers; the default is `authorization: Bearer <key>`. */
  readonly authHeaders?: (channel: UpstreamChannel) => Record<string, string>;
  /** A field rename the upstream needs. Returns the changes to apply, or null; must not mutate `body`. */
  readonly rewriteBody?: (body: JsonObject, input: UpstreamRequestInput) => JsonObject | null;
}

export const ALL_RELAY_MODES_BUT_RERANK: ReadonlySet<RelayMode> = new Set<RelayMode>([
  'chat',
  'completions',
  'embeddings',
  'moderations',
  'images-generations',
  'audio-speech',
  'audio-transcriptions',
  'audio-translations',
]);

export function bearerAuth(channel: UpstreamChannel): Record<string, string> {
  return { authorization: `Bearer ${channel.key}` };
}
