import type { UpstreamSuccess } from '#server/upstreams/upstream-adapter';
import type { RoutableChannel } from '../../relay-ports';
import { countTextTokens } from '../../tokenizer/token-counter';
import { HOP_BY_HOP } from './answer-writes';
import { endedBy, fromTokenUsage, imageCount, settle, type Usage } from './charge-builder';
import { promptTokens, type RelayContext, type RelayDeps } from './relay-context';

/**
 * A whole (not streamed) answer: reported, settled, then written in one piece with its length. A client that left
 * while the upstream answered gets nothing written; the answer is still charged (endReason client_gone).
 */
export async function answerPlain(
  deps: RelayDeps,
  context: RelayContext,
  channel: RoutableChannel,
  upstreamModel: string,
  result: UpstreamSuccess,
  upstreamHeaders: Record<string, string | string[] | undefined>,
): Promise<void> {
  let usage: Usage;
  if (context.mode === 'images-generations') {
    usage = { promptTokens: imageCount(context), completionTokens: 0, cachedTokens: 0, source: 'estimated' };
  } else if (result.usage) {
    usage = fromTokenUsage(result.usage);
  } else {
    usage = {
      promptTokens:
        context.mode === 'audio-transcriptions' || context.mode === 'audio-translations' ? 0 : promptTokens(context, upstreamModel),
      completionTokens: result.completionText ? countTextTokens(result.completionText, upstreamModel) : 0,
      cachedTokens: 0,
      source: 'estimated',
    };
  }
  deps.outcomes.report({ channelId: channel.id, ok: true, status: result.status, errorCode: null, message: '', source: 'relay' });
  await settle(deps, context, channel, upstreamModel, usage, null, endedBy(context, 'completed'));

  const response = context.response;
  if (response.destroyed) return;
  const headers: Record<string, string> = {};
  if (result.passthrough) {
    // Keys, not entries: no [name, value] array per header on every answer.
    for (const name of Object.keys(upstreamHeaders)) {
      if (HOP_BY_HOP.has(name)) continue;
      const value = upstreamHeaders[name];
      const first = Array.isArray(value) ? value[0] : value;
      if (typeof first === 'string') headers[name] = first;
    }
  }
  headers['content-type'] = result.contentType || headers['content-type'] || 'application/json';
  headers['x-oneapi-request-id'] = context.request.requestId;
  const payload =
    typeof result.body === 'string'
      ? Buffer.from(result.body)
      : Buffer.from(result.body.buffer, result.body.byteOffset, result.body.byteLength);
  headers['content-length'] = String(payload.length);
  response.writeHead(result.status, headers);
  response.end(payload);
}
