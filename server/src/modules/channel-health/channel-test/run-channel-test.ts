import { request } from 'undici';
import type { UpstreamCall, UpstreamCallAnswer, UpstreamRequest, UpstreamResponse } from '#server/upstreams/upstream-adapter';
import { redactKey } from '#server/common/crypto/redact';
import type { UpstreamRegistry } from '#server/upstreams/upstream-registry';
import { answerFromBytes } from '#server/upstreams/shared/call-answer';
import { UpstreamCallFailure, UpstreamLocalError } from '#server/upstreams/upstream-errors';
import type { ChannelOutcome } from '../outcome/channel-outcome';
import { channelTestInput, chooseTestModel, type TestableChannel } from './build-channel-test';

export interface ChannelTestRun {
  ok: boolean;
  model: string;
  /** The model sent upstream (after the channel's model_mapping when `?model=` was given). */
  upstreamModel: string;
  /** Token counts the upstream reported on success; null when it reported none (or the test failed). */
  usage: { promptTokens: number; completionTokens: number } | null;
  /** Wall-clock milliseconds for the whole test. */
  elapsedMs: number;
  /** '' on success; the upstream's (or the gateway's) error message otherwise. */
  message: string;
  outcome: ChannelOutcome;
}

/**
 * Sends new-api's one-message chat (`hi`, one token, not streamed) to the channel through its adapter and reads
 * the answer back the way the relay does. Never throws for an upstream or adapter problem: the failure is the result.
 */
export async function runChannelTest(
  channel: TestableChannel,
  requestedModel: string | undefined,
  registry: UpstreamRegistry,
  timeoutMs: number,
  now: () => number = Date.now,
): Promise<ChannelTestRun> {
  const { model, upstreamModel } = chooseTestModel(channel, requestedModel);
  const started = now();
  const finish = (
    ok: boolean,
    status: number,
    message: string,
    errorCode: string | null,
    errorType: string | null = null,
    usage: ChannelTestRun['usage'] = null,
  ): ChannelTestRun => {
    const elapsedMs = Math.max(0, Math.round(now() - started));
    // An upstream that repeats the key it was sent: the key reaches neither the answer nor the ChannelTested event.
    const shown = redactKey(message, channel.key);
    return {
      ok,
      model,
      upstreamModel,
      usage,
      elapsedMs,
      message: shown,
      outcome: { channelId: channel.id, ok, status, errorCode, errorType, message: shown, source: 'test', responseTimeMs: elapsedMs },
    };
  };
  try {
    const adapter = registry.get(channel.type);
    // No client to leave here; a detached call keeps its own (shorter) bound.
    const call: UpstreamCall = (upstream, options) => send(upstream, Math.min(timeoutMs, options?.detached?.timeoutMs ?? timeoutMs));
    let input = channelTestInput(channel, upstreamModel);
    if (adapter.prepare) input = await adapter.prepare(input, call);
    const upstream = adapter.buildRequest(input);
    let response: UpstreamResponse;
    if (adapter.send) {
      // Adapters that make their own call (an SDK, a WebSocket, a token exchange) make it here too.
      const http = async (request: UpstreamRequest): Promise<UpstreamCallAnswer> => {
        const answer = await send(request, timeoutMs);
        return answerFromBytes(answer.status, answer.contentType, answer.body);
      };
      const answer = await adapter.send(input, upstream, { http, headersTimeoutMs: timeoutMs, bodyTimeoutMs: timeoutMs });
      response = { status: answer.status, contentType: answer.contentType, body: await answer.body.bytes() };
    } else {
      response = await call(upstream);
    }
    if (adapter.complete && response.status >= 200 && response.status < 300) response = await adapter.complete(input, response, call);
    const result = adapter.parseResponse(input, response);
    if (result.ok) {
      const usage = result.usage ? { promptTokens: result.usage.prompt_tokens, completionTokens: result.usage.completion_tokens } : null;
      return finish(true, result.status, '', null, null, usage);
    }
    const code = result.error.code === null || result.error.code === undefined ? null : String(result.error.code);
    return finish(false, result.status, result.error.message || `status code ${result.status}`, code, result.error.type || null);
  } catch (error) {
    if (error instanceof UpstreamLocalError) return finish(false, error.status, error.message, error.code, error.type);
    if (error instanceof UpstreamCallFailure) {
      const { status, error: failure } = error.failure;
      const code = failure.code === null || failure.code === undefined ? null : String(failure.code);
      return finish(false, status, failure.message || `status code ${status}`, code, failure.type || null);
    }
    // Unreachable, reset or too slow: a transient failure (status 0), never a fatal one.
    const message = error instanceof Error ? error.message : String(error);
    return finish(false, 0, `请求上游地址失败: ${message}`, 'do_request_failed');
  }
}

/** One call to the upstream with the test's timeout, read whole. */
async function send(upstream: UpstreamRequest, timeoutMs: number): Promise<UpstreamResponse> {
  const answer = await request(upstream.url, {
    method: upstream.method,
    headers: upstream.headers,
    body: upstream.body,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = new Uint8Array(await answer.body.arrayBuffer());
  const contentType = answer.headers['content-type'];
  return { status: answer.statusCode, contentType: Array.isArray(contentType) ? (contentType[0] ?? '') : (contentType ?? ''), body };
}
