import type { JsonObject, UpstreamRequestInput } from '../upstream-adapter';

export type StreamOptionsPolicy = 'force' | 'remove' | 'keep';

function wantsUsageAlready(streamOptions: unknown): boolean {
  return typeof streamOptions === 'object' && streamOptions !== null && (streamOptions as JsonObject).include_usage === true;
}

/**
 * The upstream body: the client's fields exactly as sent (unknown fields and zero values included — new-api
 * re-serialised a fixed struct and dropped them), with the mapped model, the
 * stream_options policy and the profile's rewrite applied. One shallow copy and one JSON.stringify; the
 * client's raw bytes go out untouched when nothing changes.
 */
export function buildOpenAICompatibleBody(
  input: UpstreamRequestInput,
  policy: StreamOptionsPolicy,
  rewrite: JsonObject | null,
): string | Uint8Array {
  const body = input.body ?? {};
  const setModel = body.model !== input.upstreamModel;
  const forceUsage = policy === 'force' && input.isStream && !wantsUsageAlready(body.stream_options);
  const removeOptions = policy === 'remove' && Object.hasOwn(body, 'stream_options');
  if (!setModel && !forceUsage && !removeOptions && !rewrite && input.rawBody) return input.rawBody;

  const out: JsonObject = { ...body, model: input.upstreamModel };
  if (forceUsage) {
    const current = body.stream_options;
    out.stream_options = typeof current === 'object' && current !== null ? { ...current, include_usage: true } : { include_usage: true };
  }
  if (removeOptions) delete out.stream_options;
  if (rewrite) {
    for (const key of Object.keys(rewrite)) {
      if (rewrite[key] === undefined) delete out[key];
      else out[key] = rewrite[key];
    }
  }
  return JSON.stringify(out);
}
