import { request } from 'undici';
import type { UpstreamRegistry } from '#server/upstreams/upstream-registry';
import { answerFromBytes } from '#server/upstreams/shared/call-answer';
import type { UpstreamCallAnswer, UpstreamRequest } from '#server/upstreams/upstream-adapter';
import { UpstreamLocalError } from '#server/upstreams/upstream-errors';
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
    return {
      ok,
      model,
      upstreamModel,
      usage,
      elapsedMs,
      message,
      outcome: { channelId: channel.id, ok, status, errorCode, errorType, message, source: 'test', responseTimeMs: elapsedMs },
    };
  };
  try {
    const adapter = registry.get(channel.type);
    const input = channelTestInput(channel, upstreamModel);
    const upstream = adapter.buildRequest(input);
    const http = async (call: UpstreamRequest): Promise<UpstreamCallAnswer> => {
      const answer = await request(call.url, {
        method: call.method,
        headers: call.headers,
        body: call.body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      });
      const contentType = answer.headers['content-type'];
      const type = Array.isArray(contentType) ? (contentType[0] ?? '') : (contentType ?? '');
      return answerFromBytes(answer.statusCode, type, new Uint8Array(await answer.body.arrayBuffer()));
    };
    // Adapters that make their own call (a token exchange, an SDK, a WebSocket) make it here too.
    const answer = adapter.send
      ? await adapter.send(input, upstream, { http, headersTimeoutMs: timeoutMs, bodyTimeoutMs: timeoutMs })
      : await http(upstream);
    const result = adapter.parseResponse(input, {
      status: answer.status,
      contentType: answer.contentType,
      body: await answer.body.bytes(),
    });
    if (result.ok) {
      const usage = result.usage ? { promptTokens: result.usage.prompt_tokens, completionTokens: result.usage.completion_tokens } : null;
      return finish(true, result.status, '', null, null, usage);
    }
    const code = result.error.code === null || result.error.code === undefined ? null : String(result.error.code);
    return finish(false, result.status, result.error.message || `status code ${result.status}`, code, result.error.type || null);
  } catch (error) {
    if (error instanceof UpstreamLocalError) return finish(false, error.status, error.message, error.code, error.type);
    // Unreachable, reset or too slow: a transient failure (status 0), never a fatal one.
    const message = error instanceof Error ? error.message : String(error);
    return finish(false, 0, `请求上游地址失败: ${message}`, 'do_request_failed');
  }
}
