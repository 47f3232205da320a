import type { ChargeEndReason } from '#server/modules/accounts/index';
import type {
  StreamCloseCause,
  StreamEnd,
  StreamSummary,
  TokenUsage,
  UpstreamAdapter,
  UpstreamRequestInput,
} from '#server/upstreams/upstream-adapter';
import type { RoutableChannel } from '../../relay-ports';
import { countTextTokens } from '../../tokenizer/token-counter';
import { isBodyTimeout } from '../../upstream-client/upstream-http-client';
import { type UpstreamAnswer, waitForDrain } from './answer-writes';
import { endedBy, fromTokenUsage, settle, type Usage } from './charge-builder';
import { promptTokens, type RelayContext, type RelayDeps } from './relay-context';

/** Why a stream the client stayed for ended, as the charge records it (unreadable framing is the upstream's error). */
const END_REASONS: Record<StreamEnd, ChargeEndReason> = {
  done: 'completed',
  upstream_error: 'upstream_error',
  invalid_stream: 'upstream_error',
  idle_timeout: 'timeout',
  cut: 'cut_stream',
};

/**
 * Streams the upstream's answer chunk by chunk. From the first byte on there is no retry: a cut or an
 * upstream error becomes an error event for the client and what was delivered is billed. A client that leaves does
 * not stop the reading: the upstream's stream is read to its end (writing nothing) for at most the drain bound
 * (the upstream client aborts it then), and charged with the upstream's usage, else with what was counted.
 */
export async function stream(
  deps: RelayDeps,
  context: RelayContext,
  channel: RoutableChannel,
  adapter: UpstreamAdapter,
  input: UpstreamRequestInput,
  upstreamModel: string,
  answer: UpstreamAnswer,
): Promise<void> {
  const response = context.response;
  const transformer = adapter.createStreamTransformer(input);
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'x-oneapi-request-id': context.request.requestId,
  });
  // Headers go out now only if the first bytes are not here yet (a model still thinking: the client learns at once
  // that its stream started). When they are, the first write carries headers and first event together: one
  // packet, one wake-up of the client instead of two (docs/benchmark.md, stream TTFB).
  // (`headersSent` is true from writeHead on, before anything reached the socket: hence a flag of our own.)
  let headersOut = !answer.body.ready();
  if (headersOut) response.flushHeaders();
  let cause: StreamCloseCause = 'eof';
  let first = true;
  try {
    for await (let chunk of answer.body) {
      if (first) {
        // An upstream read often holds many events (a fast model, a busy upstream). The first line goes out on its
        // own, so the client's first token does not wait for the rest of the read to be transformed; after that,
        // one write per read. Transformers take any split of the bytes, as TCP gives them.
        first = false;
        const cut = chunk.indexOf(10);
        if (cut >= 0 && cut < chunk.length - 1) {
          const head = transformer.push(chunk.subarray(0, cut + 1));
          if (head !== null && !response.destroyed) {
            headersOut = true;
            if (!response.write(head)) await waitForDrain(response);
          }
          chunk = chunk.subarray(cut + 1);
        }
      }
      const out = transformer.push(chunk);
      if (out !== null && !response.destroyed) {
        headersOut = true;
        if (!response.write(out)) await waitForDrain(response);
      }
      if (!headersOut) {
        // The first read gave the client nothing yet (a keep-alive comment, half an event): headers now, not when
        // the model gets to its first token.
        headersOut = true;
        if (!response.destroyed) response.flushHeaders();
      }
    }
  } catch (error) {
    cause = isBodyTimeout(error) ? 'idle_timeout' : 'connection_error';
    answer.body.destroy();
  }
  const summary = transformer.finish(cause);
  const endReason = endedBy(context, END_REASONS[summary.end]);
  const usage = streamUsage(context, summary, upstreamModel);
  const firstTokenMs = summary.firstTokenAt !== null ? Math.max(0, summary.firstTokenAt - context.startedAt) : 0;
  const ok = summary.end === 'done';
  // A stream cut because the client went away is no failure of the channel (see failed() in the attempt loop).
  if (ok || !context.request.signal.aborted) {
    deps.outcomes.report({
      channelId: channel.id,
      ok,
      status: ok ? 200 : 502,
      errorCode: ok ? null : summary.error?.code === null || summary.error?.code === undefined ? summary.end : String(summary.error.code),
      errorType: ok ? null : summary.error?.type || null,
      message: summary.error?.message ?? '',
      source: 'relay',
    });
  }
  await settle(deps, context, channel, upstreamModel, usage, firstTokenMs, endReason);
  if (response.destroyed) return;
  const tokenUsage: TokenUsage = {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
  response.end(transformer.trailer({ usage: summary.usage ?? tokenUsage, requestId: context.request.requestId }));
}

/** The upstream's usage when it sent one, else counted here from what was delivered. */
function streamUsage(context: RelayContext, summary: StreamSummary, upstreamModel: string): Usage {
  if (summary.usage) return fromTokenUsage(summary.usage);
  const completion = countTextTokens(summary.completionText, upstreamModel) + 7 * summary.toolCallCount;
  return {
    promptTokens: summary.promptTokens ?? promptTokens(context, upstreamModel),
    completionTokens: completion,
    cachedTokens: 0,
    source: 'estimated',
  };
}
