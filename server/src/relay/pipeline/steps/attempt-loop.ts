import type {
  ClientHeaders,
  OpenAIError,
  UpstreamAdapter,
  UpstreamCall,
  UpstreamCallAnswer,
  UpstreamRequestInput,
  UpstreamResponse,
} from '#server/upstreams/upstream-adapter';
import { UpstreamCallFailedError, UpstreamCallFailure, UpstreamLocalError } from '#server/upstreams/upstream-errors';
import { redactKey } from '#server/common/crypto/redact';
import { RelayError } from '../../relay-error';
import type { RoutableChannel } from '../../relay-ports';
import { isDrainExpired, UpstreamTransportError } from '../../upstream-client/upstream-http-client';
import { fetchRemoteMedia, limitImagesPerMessage } from '../remote-media';
import { shouldRetry } from '../retry-policy';
import { applyStatusCodeMapping } from '../status-code-mapping';
import { release } from './admission';
import { pipeAudio } from './audio-answer';
import { estimatedUsage, settle } from './charge-builder';
import { answerPlain } from './plain-answer';
import { header, type RelayContext, type RelayDeps } from './relay-context';
import { upstreamModelFor } from './select-channel';
import { BufferedBody, checkRefusedStream } from './refused-stream';
import { stream } from './stream-answer';

const SATURATED_MESSAGE = '当前分组上游负载已饱和，请稍后再试';
const DO_REQUEST_FAILED: OpenAIError = { message: '请求上游地址失败', type: 'new_api_error', param: '', code: 'do_request_failed' };

/** An attempt's failure as the client would see it, after status_code_mapping. */
interface AttemptFailure {
  status: number;
  error: OpenAIError;
  local: boolean;
}

/**
 * Call upstream: new-api's retry loop (up to RetryTimes more attempts, each at the next lower priority), preferring
 * channels not yet tried, never after the first streamed byte. Returns once one attempt answered the client (and
 * settled); else releases the reservation and throws the last attempt's error.
 */
export async function attempts(deps: RelayDeps, context: RelayContext, first: RoutableChannel, forced: boolean): Promise<void> {
  const retryTimes = forced ? 0 : deps.pricing.retryTimes();
  const tried = new Set<number>();
  let channel: RoutableChannel | null = first;
  let lastFailure: AttemptFailure | null = null;
  for (let attempt = 0; attempt <= retryTimes; attempt++) {
    if (attempt > 0) {
      channel = deps.router.select(context.caller.group, context.model, { retry: attempt, exclude: tried });
      // new-api answered `获取重试渠道失败` here, hiding the real upstream error; the last one is kept instead.
      if (!channel) break;
    }
    tried.add(channel!.id);
    context.channelPath.push(channel!.id);
    const failure = await attemptOn(deps, context, channel!);
    if (!failure) return;
    lastFailure = failure;
    // A client that went away wants no answer: no other channel is tried on its behalf.
    if (context.request.signal.aborted || !shouldRetry(failure, retryTimes - attempt, forced, channel!.type)) break;
  }
  await release(deps, context);
  throw failureError(lastFailure!);
}

function failureError(failure: AttemptFailure): RelayError {
  const message = failure.status === 429 ? SATURATED_MESSAGE : failure.error.message;
  const code = failure.error.code === null || failure.error.code === undefined ? null : String(failure.error.code);
  return new RelayError(failure.status, message, failure.error.type || 'new_api_error', {
    shape: 'relay',
    code,
    param: failure.error.param ?? '',
  });
}

/** An adapter's own refusal (a malformed credential, say), its message without the channel's key. */
function localFailure(error: UpstreamLocalError, channel: RoutableChannel): AttemptFailure {
  const openai = error.toOpenAIError();
  return { status: error.status, error: { ...openai, message: redactKey(openai.message, channel.key) }, local: true };
}

/** One attempt on one channel: null when the client got its answer (and it was settled), else the failure. */
async function attemptOn(deps: RelayDeps, context: RelayContext, channel: RoutableChannel): Promise<AttemptFailure | null> {
  let adapter: UpstreamAdapter;
  let input: UpstreamRequestInput;
  let upstream;
  const upstreamModel = upstreamModelFor(context, channel);
  try {
    adapter = deps.registry.get(channel.type);
  } catch (error) {
    if (error instanceof UpstreamLocalError) return localFailure(error, channel);
    throw error;
  }
  // Adapters that cannot pass image URLs upstream (Gemini) get them fetched here, once per request, before the
  // upstream call. A failed fetch throws a 400 relay error: handle() releases the reservation, nothing is charged.
  if (adapter.needsRemoteMedia && context.mode === 'chat' && !context.media) {
    context.media = await fetchRemoteMedia(limitImagesPerMessage(context.body), {
      signal: context.request.signal,
      allowPrivate: deps.allowPrivateMedia,
    });
  }
  const call = adapterCall(deps, context);
  try {
    input = upstreamInput(context, channel, upstreamModel, adapter.needsRemoteMedia);
    if (adapter.prepare) input = await adapter.prepare(input, call);
    upstream = adapter.buildRequest(input);
  } catch (error) {
    if (error instanceof UpstreamLocalError) return localFailure(error, channel);
    const failure = adapterCallFailed(deps, channel, context, error);
    if (failure) return failure;
    throw error;
  }
  const overrides = channel.headerOverride;
  if (overrides) {
    for (const name of Object.keys(overrides)) {
      const value = overrides[name];
      if (typeof value === 'string') upstream.headers[name.toLowerCase()] = value;
    }
  }

  // A client already gone gets no upstream call: the upstream never receives the request, nothing is charged.
  if (context.request.signal.aborted) return failed(deps, channel, { status: 500, error: DO_REQUEST_FAILED, local: false }, true);
  let answer: UpstreamCallAnswer;
  // A client that leaves from here on: see UpstreamCallOptions (aborted at once until the request is written, then
  // read on for at most the drain bound).
  const options = {
    headersTimeoutMs: deps.relayTimeoutMs,
    bodyTimeoutMs: context.isStream ? deps.streamingTimeoutMs : deps.relayTimeoutMs,
    signal: context.request.signal,
    drainAfterClientGoneMs: deps.drainAfterClientGoneMs,
  };
  try {
    // Adapters whose upstream is not one plain HTTP call (a token exchange, an SDK, a WebSocket) make it themselves.
    answer = adapter.send
      ? await adapter.send(input, upstream, { ...options, http: (request) => deps.http.send(request, options) })
      : await deps.http.send(upstream, options);
  } catch (error) {
    if (isDrainExpired(error)) return settleDrained(deps, context, channel, upstreamModel);
    if (error instanceof UpstreamLocalError) return localFailure(error, channel);
    const failure = adapterCallFailed(deps, channel, context, error);
    if (failure) return failure;
    if (!(error instanceof UpstreamTransportError) && !(error instanceof UpstreamCallFailedError)) throw error;
    deps.logger.warn(`channel #${channel.id}: ${error.message}`);
    return failed(deps, channel, { status: 500, error: DO_REQUEST_FAILED, local: false }, context.request.signal.aborted);
  }

  const success = answer.status >= 200 && answer.status < 300;
  if (success && context.isStream && isJsonAnswer(answer.contentType)) {
    // Baidu and Zhipu refuse a stream with HTTP 200 and a JSON error body. Read whole before any byte reaches the
    // client, it is the attempt's failure (retried, seen by the health rules), not an error event in a started stream.
    let bytes: Buffer;
    try {
      bytes = await answer.body.bytes();
    } catch {
      return failed(deps, channel, { status: 500, error: DO_REQUEST_FAILED, local: false }, context.request.signal.aborted);
    }
    const probe = adapter.parseResponse(input, { status: answer.status, contentType: answer.contentType, body: bytes });
    if (!probe.ok)
      return failed(deps, channel, { status: applyStatusCodeMapping(channel, probe.status), error: probe.error, local: false });
    answer = { ...answer, body: new BufferedBody(bytes) };
  }
  if (success && (context.isStream || answer.contentType.includes('text/event-stream'))) {
    const checked = await checkRefusedStream(adapter, input, answer);
    if (checked === 'broken')
      return failed(deps, channel, { status: 500, error: DO_REQUEST_FAILED, local: false }, context.request.signal.aborted);
    if ('ok' in checked)
      return failed(deps, channel, { status: applyStatusCodeMapping(channel, checked.status), error: checked.error, local: false });
    await stream(deps, context, channel, adapter, input, upstreamModel, checked);
    return null;
  }
  if (success && context.mode === 'audio-speech') {
    await pipeAudio(deps, context, channel, upstreamModel, answer);
    return null;
  }

  let bodyBytes: Buffer;
  try {
    bodyBytes = await answer.body.bytes();
  } catch (error) {
    if (isDrainExpired(error)) return settleDrained(deps, context, channel, upstreamModel);
    return failed(deps, channel, { status: 500, error: DO_REQUEST_FAILED, local: false }, context.request.signal.aborted);
  }
  let response: UpstreamResponse = { status: answer.status, contentType: answer.contentType, body: bodyBytes };
  if (success && adapter.complete) {
    try {
      response = await adapter.complete(input, response, call);
    } catch (error) {
      const failure = adapterCallFailed(deps, channel, context, error);
      if (failure) return failure;
      throw error;
    }
  }
  const result =
    response.status >= 200 && response.status < 300
      ? adapter.parseResponse(input, response)
      : adapter.mapError(response.status, response.body);
  if (!result.ok) {
    // Some upstreams repeat the key they were sent in their error: it reaches neither the client nor the channel's events.
    const error = { ...result.error, message: redactKey(result.error.message, channel.key) };
    return failed(deps, channel, { status: applyStatusCodeMapping(channel, result.status), error, local: false });
  }
  await answerPlain(deps, context, channel, upstreamModel, result, answer.headers);
  return null;
}

/** A plain JSON document (an error refusing the stream), not a JSON stream such as Cohere's application/stream+json. */
function isJsonAnswer(contentType: string): boolean {
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  return mediaType === 'application/json' || mediaType === 'text/json';
}

/** An answer whose body was already read, handed to the stream step as if it were arriving. */
/** An adapter's own calls (`prepare`, `complete`) go through the relay's client with the request's timeouts and signal. */
function adapterCall(deps: RelayDeps, context: RelayContext): UpstreamCall {
  return async (request, options) => {
    const detached = options?.detached;
    // A detached call (a shared token exchange) outlives this request's client: its own timeout, not the client's signal.
    const answer = await deps.http.send(
      request,
      detached
        ? { headersTimeoutMs: detached.timeoutMs, bodyTimeoutMs: detached.timeoutMs, signal: AbortSignal.timeout(detached.timeoutMs) }
        : { headersTimeoutMs: deps.relayTimeoutMs, bodyTimeoutMs: deps.relayTimeoutMs, signal: context.request.signal },
    );
    let body: Buffer;
    try {
      body = await answer.body.bytes();
    } catch (error) {
      throw new UpstreamTransportError(error);
    }
    return { status: answer.status, contentType: answer.contentType, body };
  };
}

/** A refused or unreachable adapter call as the attempt's failure (reported to the health rules), else null. */
function adapterCallFailed(deps: RelayDeps, channel: RoutableChannel, context: RelayContext, error: unknown): AttemptFailure | null {
  if (error instanceof UpstreamCallFailure) {
    const failure = error.failure;
    const redacted = { ...failure.error, message: redactKey(failure.error.message, channel.key) };
    return failed(deps, channel, { status: applyStatusCodeMapping(channel, failure.status), error: redacted, local: false });
  }
  if (error instanceof UpstreamTransportError) {
    deps.logger.warn(`channel #${channel.id}: ${error.message}`);
    return failed(deps, channel, { status: 500, error: DO_REQUEST_FAILED, local: false }, context.request.signal.aborted);
  }
  return null;
}

/**
 * The client left after the upstream had the request, and the upstream's answer did not end within the drain
 * bound: the call was aborted, the upstream may still bill its work. Charged the estimate (the prompt counted here),
 * endReason client_gone; the channel is not reported (see failed()), and no other channel is tried.
 */
async function settleDrained(deps: RelayDeps, context: RelayContext, channel: RoutableChannel, upstreamModel: string): Promise<null> {
  await settle(deps, context, channel, upstreamModel, estimatedUsage(context, upstreamModel), null, 'client_gone');
  return null;
}

/**
 * Report: a failed attempt goes to the channel-health rules, unless `clientGone`: a call the relay aborted because
 * its client went away (a user pressing "stop") says nothing about the channel, and must not count toward disabling it.
 */
function failed(deps: RelayDeps, channel: RoutableChannel, failure: AttemptFailure, clientGone = false): AttemptFailure {
  if (clientGone) return failure;
  // The type goes apart as well, as the channel test reports it: the health decider matches code and type against
  // its fatal lists (new-api's auto-disable rules), so a fatal type is not hidden behind a code. errorCode keeps the
  // type when there is no code, for consumers that read errorCode alone.
  const code = failure.error.code === null || failure.error.code === undefined ? null : String(failure.error.code);
  deps.outcomes.report({
    channelId: channel.id,
    ok: false,
    status: failure.status,
    errorCode: code ?? (failure.error.type || null),
    errorType: failure.error.type || null,
    message: failure.error.message,
    source: 'relay',
  });
  return failure;
}

/** What the adapter builds the upstream call from: the client's body as sent, unless the channel overrides params or images are limited. */
function upstreamInput(
  context: RelayContext,
  channel: RoutableChannel,
  upstreamModel: string,
  needsRemoteMedia = false,
): UpstreamRequestInput {
  const headers = context.request.headers;
  const clientHeaders: ClientHeaders = {
    accept: header(headers, 'accept'),
    contentType: header(headers, 'content-type'),
    anthropicVersion: header(headers, 'anthropic-version'),
    anthropicBeta: header(headers, 'anthropic-beta'),
  };
  const paramOverride = channel.paramOverride && Object.keys(channel.paramOverride).length > 0 ? channel.paramOverride : null;
  const merged = paramOverride ? { ...context.body, ...paramOverride } : context.body;
  const body = needsRemoteMedia ? limitImagesPerMessage(merged) : merged;
  return {
    channel: {
      type: channel.type,
      key: channel.key,
      baseUrl: channel.baseUrl || null,
      other: channel.other || null,
      openaiOrganization: channel.openaiOrganization,
    },
    relayMode: context.mode,
    path: context.request.path === '/pg/chat/completions' ? '/v1/chat/completions' : context.request.path,
    query: context.request.query,
    body,
    rawBody: body !== context.body || context.playground || context.multipart ? undefined : (context.request.rawBody ?? undefined),
    multipart: context.multipart ?? undefined,
    upstreamModel,
    isStream: context.isStream,
    clientWantsUsage: context.clientWantsUsage,
    clientHeaders,
    media: needsRemoteMedia && context.media ? context.media : undefined,
  };
}
