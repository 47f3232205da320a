import type { ServerResponse } from 'node:http';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { OptionsService } from '../../modules/options';
import type {
  ClientHeaders,
  InlineMedia,
  JsonObject,
  MultipartForm,
  OpenAIError,
  RelayMode,
  StreamCloseCause,
  StreamSummary,
  TokenUsage,
  UpstreamAdapter,
  UpstreamFailure,
  UpstreamRequestInput,
  UpstreamSuccess,
} from '../../upstreams/upstream-adapter';
import { UpstreamLocalError } from '../../upstreams/upstream-errors';
import { createUpstreamRegistry, geminiSafetySettingFromEnv, type UpstreamRegistry } from '../../upstreams/upstream-registry';
import { type AdmittedBy, LEASE_MS, QuotaAdmissionService } from '../admission/quota-admission.service';
import type { RelaySignal } from '../http/client-gone-signal';
import { LeaseRenewer } from '../leases/lease-renewer';
import { consumeContent } from '../../../../projections/src/read-models/logs/consume-log-wording';
import { finalQuota, type ModelPricing, priceImageRequest, PricingService, pricingFor, type PricingTables, referencePreConsume, reservationQuota } from '../../modules/pricing';
import { RelayError, withRequestId } from '../relay-error';
import {
  RELAY_AUTHENTICATOR,
  RELAY_CHANNEL_ROUTER,
  RELAY_OUTCOME_REPORTER,
  type RelayAuthenticator,
  type RelayCaller,
  type RelayChannelRouter,
  type RelayOutcomeReporter,
  type RoutableChannel,
} from '../relay-ports';
import { RelaySettlementService } from '../settlement/relay-settlement.service';
import type { QuotaConsumedData } from '../../modules/accounts';
import { countTextTokens } from '../tokenizer/token-counter';
import { isBodyTimeout, UpstreamHttpClient, UpstreamTransportError } from '../upstream-client/upstream-http-client';
import { relayAuthorization } from './relay-authorization';
import {
  countPromptTokens,
  defaultModelFor,
  engineModelOf,
  maxTokensOf,
  parseAudioForm,
  parseJsonBody,
  validateAudioRequest,
  validateTextRequest,
} from './relay-request';
import { fetchRemoteMedia, limitImagesPerMessage } from './remote-media';
import { shouldRetry } from './retry-policy';
import { findSensitiveWords, sensitiveWordList } from './sensitive-words';
import { applyStatusCodeMapping } from './status-code-mapping';

/** One relay request as the HTTP layer hands it over. */
export interface RelayHttpRequest {
  requestId: string;
  /** Path without the query, e.g. `/v1/chat/completions`. */
  path: string;
  /** Query without `?`, or ''. */
  query: string;
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer | null;
  clientIp: string;
  /** Aborted when the client goes away. */
  signal: RelaySignal;
}

/** The playground (`/pg/chat/completions`): a session user instead of a token. */
export interface PlaygroundCaller {
  user: { id: number; username: string; group: string; role: number };
  useAccessToken: boolean;
}

const LEASE_RENEW_MS = Math.floor(LEASE_MS / 3);
const SATURATED_MESSAGE = '当前分组上游负载已饱和，请稍后再试';
const DO_REQUEST_FAILED: OpenAIError = { message: '请求上游地址失败', type: 'new_api_error', param: '', code: 'do_request_failed' };

function header(headers: RelayHttpRequest['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function relayLocal(status: number, message: string, code: string | null, type = 'new_api_error'): RelayError {
  return new RelayError(status, message, type, { shape: 'relay', code });
}

/** An attempt's failure as the client would see it, after status_code_mapping. */
interface AttemptFailure {
  status: number;
  error: OpenAIError;
  local: boolean;
}

interface RelayContext {
  request: RelayHttpRequest;
  response: ServerResponse;
  mode: RelayMode;
  caller: RelayCaller;
  playground: boolean;
  body: JsonObject;
  /** Audio transcriptions and translations: the client's form, forwarded whole (fields and file). */
  multipart: MultipartForm | null;
  model: string;
  isStream: boolean;
  clientWantsUsage: boolean;
  startedAt: number;
  tables: PricingTables;
  /** Token id the reservation was made against (null: unlimited token, playground). */
  reservedTokenId: number | null;
  reserved: boolean;
  /** The reservation that admitted the request: its own in Redis, or a share of a quota block (no lease of its own). */
  reservation: AdmittedBy | null;
  settled: boolean;
  channelPath: number[];
  promptTokensMemo: Map<string, number>;
  /** Remote images fetched once for adapters with `needsRemoteMedia` (null: not fetched yet). */
  media: Map<string, InlineMedia> | null;
}

/**
 * The relay hot path: authenticate → parse → price → reserve → select → upstream → answer → settle.
 * No database round trip before the upstream call in the common case (token, channel and option lookups are
 * in-process caches; admission is Redis). Every request that got an answer appends exactly one QuotaConsumed;
 * every request that failed before an answer releases its reservation and appends nothing.
 */
@Injectable()
export class RelayPipelineService {
  private readonly logger = new Logger('Relay');
  private readonly registry: UpstreamRegistry;
  private readonly streamingTimeoutMs: number;
  private readonly relayTimeoutMs: number;
  private readonly leases: LeaseRenewer;

  constructor(
    @Inject(RELAY_AUTHENTICATOR) private readonly authenticator: RelayAuthenticator,
    @Inject(RELAY_CHANNEL_ROUTER) private readonly router: RelayChannelRouter,
    @Inject(RELAY_OUTCOME_REPORTER) private readonly outcomes: RelayOutcomeReporter,
    private readonly admission: QuotaAdmissionService,
    private readonly settlement: RelaySettlementService,
    private readonly pricing: PricingService,
    private readonly options: OptionsService,
    private readonly http: UpstreamHttpClient,
  ) {
    this.registry = createUpstreamRegistry({
      forceStreamUsage: process.env.FORCE_STREAM_OPTION !== 'false',
      geminiSafetyThreshold: geminiSafetySettingFromEnv(),
    });
    this.streamingTimeoutMs = Math.max(1, Number(process.env.STREAMING_TIMEOUT ?? 30)) * 1000;
    this.relayTimeoutMs = Math.max(0, Number(process.env.RELAY_TIMEOUT ?? 0)) * 1000;
    this.leases = new LeaseRenewer((requestId, userId) => this.admission.renew({ requestId, userId, leaseMs: LEASE_MS }), LEASE_RENEW_MS);
  }

  /** Handles one request and writes the whole answer to `response`; never throws. */
  async handle(request: RelayHttpRequest, response: ServerResponse, mode: RelayMode, playground?: PlaygroundCaller): Promise<void> {
    let context: RelayContext | null = null;
    try {
      const caller = playground ? null : await this.authenticator.authenticate(relayAuthorization(request.headers), request.clientIp, undefined, { quotaByReservation: true });
      if (playground?.useAccessToken) throw relayLocal(400, '暂不支持使用 access token', 'access_token_not_supported');
      const { body, multipart } = this.parseBody(request, mode, Boolean(playground));
      const resolvedCaller = caller ?? this.playgroundCaller(playground!, body);
      context = this.createContext(request, response, mode, resolvedCaller, body, Boolean(playground));
      context.multipart = multipart;
      await this.run(context);
    } catch (error) {
      if (context?.reserved && !context.settled) await this.release(context);
      this.answerError(request, response, error, context?.playground ?? Boolean(playground));
    }
  }

  /** JSON for every mode but audio uploads (multipart); the playground answers its own code (reference Playground). */
  private parseBody(request: RelayHttpRequest, mode: RelayMode, playground: boolean): { body: JsonObject; multipart: MultipartForm | null } {
    if (mode === 'audio-transcriptions' || mode === 'audio-translations') {
      const { body, form } = parseAudioForm(request.rawBody, header(request.headers, 'content-type'));
      return { body, multipart: form };
    }
    try {
      return { body: parseJsonBody(request.rawBody), multipart: null };
    } catch (error) {
      if (playground && error instanceof RelayError) throw relayLocal(400, error.message, 'unmarshal_request_failed');
      throw error;
    }
  }

  private playgroundCaller(playground: PlaygroundCaller, body: JsonObject): RelayCaller {
    if (playground.useAccessToken) throw relayLocal(400, '暂不支持使用 access token', 'access_token_not_supported');
    if (typeof body.model !== 'string' || body.model === '') throw relayLocal(400, '请选择模型', 'model_required');
    const requested = typeof body.group === 'string' && body.group !== '' ? body.group : playground.user.group;
    if (requested !== playground.user.group) {
      const usable = this.options.getJson<Record<string, unknown>>('UserUsableGroups', {});
      if (!Object.hasOwn(usable, requested)) throw relayLocal(403, '无权访问该分组', 'group_not_allowed');
    }
    return {
      token: { id: 0, name: `playground-${requested}`, key: '', group: requested, unlimitedQuota: true, modelLimits: null },
      user: playground.user,
      group: requested,
      specificChannelId: null,
    };
  }

  private createContext(request: RelayHttpRequest, response: ServerResponse, mode: RelayMode, caller: RelayCaller, body: JsonObject, playground: boolean): RelayContext {
    const model = typeof body.model === 'string' && body.model !== '' ? body.model : (mode === 'embeddings' ? engineModelOf(request.path) : null) ?? defaultModelFor(mode);
    const streamable = mode === 'chat' || mode === 'completions';
    const isStream = streamable && body.stream === true;
    const streamOptions = body.stream_options;
    const clientWantsUsage = isStream && typeof streamOptions === 'object' && streamOptions !== null && (streamOptions as JsonObject).include_usage === true;
    return {
      request,
      response,
      mode,
      caller,
      playground,
      body,
      multipart: null,
      model,
      isStream,
      clientWantsUsage,
      startedAt: Date.now(),
      tables: this.pricing.tables(),
      reservedTokenId: playground || caller.token.unlimitedQuota ? null : caller.token.id,
      reserved: false,
      reservation: null,
      settled: false,
      channelPath: [],
      promptTokensMemo: new Map(),
      media: null,
    };
  }

  private promptTokens(context: RelayContext, upstreamModel: string): number {
    let tokens = context.promptTokensMemo.get(upstreamModel);
    if (tokens === undefined) {
      tokens = context.mode === 'images-generations' ? 0 : countPromptTokens(context.mode, context.body, upstreamModel);
      context.promptTokensMemo.set(upstreamModel, tokens);
    }
    return tokens;
  }

  private async run(context: RelayContext): Promise<void> {
    const { caller, mode, body } = context;
    if (mode === 'images-generations') {
      if (!context.model) throw relayLocal(400, 'model is required', 'invalid_image_request');
    } else if (mode === 'audio-transcriptions' || mode === 'audio-translations') {
      validateAudioRequest(mode, body, context.multipart);
    } else {
      if (mode === 'audio-speech') validateAudioRequest(mode, body, null);
      validateTextRequest(mode, body, context.model);
    }
    // Before channel selection and reservation: a refused prompt is charged nothing and reserves nothing.
    this.checkSensitiveWords(context);

    // Distribute (reference §3.1): forced channel, token model limits, first channel.
    let channel: RoutableChannel | null;
    const forced = caller.specificChannelId;
    if (forced !== null) {
      channel = this.router.get(forced);
      if (!channel) throw new RelayError(400, '无效的渠道 Id');
      if (channel.status !== 1) throw new RelayError(403, '该渠道已被禁用');
    } else {
      if (caller.token.modelLimits && !caller.token.modelLimits.has(context.model)) {
        throw new RelayError(403, `该令牌无权访问模型 ${context.model}`);
      }
      channel = this.router.select(caller.group, context.model, { retry: 0 });
      if (!channel) {
        const message = `当前分组 ${caller.group} 下对于模型 ${context.model} 无可用渠道`;
        if (context.playground) throw relayLocal(500, message, 'get_playground_channel_failed');
        throw new RelayError(503, message);
      }
    }

    // Price and reserve against the first channel's mapped model (reference v0.3 prices the mapped name).
    const firstModel = this.upstreamModelFor(context, channel);
    const priced = this.price(context, firstModel);
    await this.reserve(context, priced.reservation, priced.referencePre);

    // One shared timer renews every held lease (no setInterval per request). A request admitted from a quota block
    // has no lease of its own: the block's lease covers it.
    const ownLease = context.reservation?.kind === 'request';
    if (ownLease) this.leases.hold(context.request.requestId, caller.user.id);
    try {
      await this.attempts(context, channel, forced !== null);
    } finally {
      if (ownLease) this.leases.release(context.request.requestId);
    }
  }

  /**
   * Prompt-side sensitive words (reference §8.1), when CheckSensitiveEnabled and CheckSensitiveOnPromptEnabled are
   * both on: options from memory, the list compiled once per option value. Text modes and text to speech answer a
   * local 400 `sensitive_words_detected`, images 400 `invalid_image_request`.
   */
  private checkSensitiveWords(context: RelayContext): void {
    if (!this.options.getBool('CheckSensitiveEnabled') || !this.options.getBool('CheckSensitiveOnPromptEnabled')) return;
    const words = findSensitiveWords(context.mode, context.body, sensitiveWordList(this.options.get('SensitiveWords')));
    if (words === null) return;
    const code = context.mode === 'images-generations' ? 'invalid_image_request' : 'sensitive_words_detected';
    throw relayLocal(400, `sensitive words: ${words.join(',')}`, code);
  }

  private upstreamModelFor(context: RelayContext, channel: RoutableChannel): string {
    const mapped = channel.modelMapping?.[context.model];
    if (typeof mapped === 'string' && mapped !== '') return mapped;
    if (context.mode === 'moderations' && !(typeof context.body.model === 'string' && context.body.model)) return 'text-moderation-latest';
    return context.model;
  }

  private price(context: RelayContext, upstreamModel: string): { pricing: ModelPricing; reservation: number; referencePre: number } {
    const { tables, caller, body } = context;
    if (context.mode === 'images-generations') {
      const image = priceImageRequest(tables, body, upstreamModel, caller.group);
      const pricing: ModelPricing = { modelPrice: image.imageRatio, modelRatio: 0, completionRatio: 0, groupRatio: image.groupRatio };
      return { pricing, reservation: image.quota, referencePre: image.quota };
    }
    const pricing = pricingFor(tables, upstreamModel, caller.group);
    const maxTokens = maxTokensOf(body);
    // Text to speech and rerank are priced by their input alone: it is counted now and reserved whole.
    const promptOnly = context.mode === 'audio-speech' || context.mode === 'rerank';
    // Otherwise prompt tokens matter for the bound only when max_tokens is given; they are counted lazily (for
    // the charge, when the upstream reports no usage), keeping the tokenizer off the common hot path.
    const promptTokens = (promptOnly || maxTokens !== null) && pricing.modelPrice < 0 ? this.promptTokens(context, upstreamModel) : 0;
    const request = { promptTokens, maxTokens, promptOnly };
    return { pricing, reservation: reservationQuota(tables, pricing, request), referencePre: referencePreConsume(tables, pricing, request) };
  }

  private async reserve(context: RelayContext, amount: number, referencePre: number): Promise<void> {
    const { caller, request } = context;
    const result = await this.admission.reserve({
      requestId: request.requestId,
      userId: caller.user.id,
      tokenId: context.reservedTokenId,
      amount,
      leaseMs: LEASE_MS,
    });
    if (result.ok) {
      context.reserved = true;
      context.reservation = result.reservation;
      return;
    }
    if (result.reason === 'user') {
      if (result.userAvailable <= 0) throw relayLocal(403, 'user quota is not enough', 'insufficient_user_quota');
      const what = context.mode === 'images-generations' ? 'image' : context.mode.startsWith('audio') ? 'audio' : 'chat';
      throw relayLocal(400, `${what} pre-consumed quota failed, user quota: ${result.userAvailable}, need quota: ${Math.max(amount, referencePre)}`, 'insufficient_user_quota');
    }
    // An empty token is what authentication reports (the check moved here to save a Redis round trip).
    if ((result.tokenAvailable ?? 0) <= 0 && this.authenticator.tokenExhausted) {
      throw await this.authenticator.tokenExhausted(caller, result.tokenAvailable ?? 0);
    }
    throw relayLocal(403, '令牌额度不足', 'pre_consume_token_quota_failed');
  }

  private async release(context: RelayContext): Promise<void> {
    context.reserved = false;
    await this.admission
      .release({ requestId: context.request.requestId, userId: context.caller.user.id, tokenId: context.reservedTokenId })
      .catch((error: unknown) => this.logger.error(`release failed for ${context.request.requestId}: ${String(error)}`));
  }

  /** The retry loop of reference §3.4, preferring channels not yet tried, never after the first streamed byte. */
  private async attempts(context: RelayContext, first: RoutableChannel, forced: boolean): Promise<void> {
    const retryTimes = forced ? 0 : this.pricing.retryTimes();
    const tried = new Set<number>();
    let channel: RoutableChannel | null = first;
    let lastFailure: AttemptFailure | null = null;
    for (let attempt = 0; attempt <= retryTimes; attempt++) {
      if (attempt > 0) {
        channel = this.router.select(context.caller.group, context.model, { retry: attempt, exclude: tried });
        // The reference answered `获取重试渠道失败` here, hiding the real upstream error (quirk 9): keep it.
        if (!channel) break;
      }
      tried.add(channel!.id);
      context.channelPath.push(channel!.id);
      const failure = await this.attempt(context, channel!);
      if (!failure) return;
      lastFailure = failure;
      // A client that went away wants no answer: no other channel is tried on its behalf.
      if (context.request.signal.aborted || !shouldRetry(failure, retryTimes - attempt, forced, channel!.type)) break;
    }
    await this.release(context);
    throw this.failureError(lastFailure!);
  }

  private failureError(failure: AttemptFailure): RelayError {
    const message = failure.status === 429 ? SATURATED_MESSAGE : failure.error.message;
    const code = failure.error.code === null || failure.error.code === undefined ? null : String(failure.error.code);
    return new RelayError(failure.status, message, failure.error.type || 'new_api_error', {
      shape: 'relay',
      code,
      param: failure.error.param ?? '',
    });
  }

  /** One attempt on one channel: null when the client got its answer (and it was settled), else the failure. */
  private async attempt(context: RelayContext, channel: RoutableChannel): Promise<AttemptFailure | null> {
    let adapter: UpstreamAdapter;
    let input: UpstreamRequestInput;
    let upstream;
    const upstreamModel = this.upstreamModelFor(context, channel);
    try {
      adapter = this.registry.get(channel.type);
    } catch (error) {
      if (error instanceof UpstreamLocalError) return { status: error.status, error: error.toOpenAIError(), local: true };
      throw error;
    }
    // Adapters that cannot pass image URLs upstream (Gemini) get them fetched here, once per request, before the
    // upstream call. A failed fetch throws a 400 relay error: handle() releases the reservation, nothing is charged.
    if (adapter.needsRemoteMedia && context.mode === 'chat' && !context.media) {
      context.media = await fetchRemoteMedia(limitImagesPerMessage(context.body), {
        signal: context.request.signal,
        allowPrivate: process.env.RELAY_MEDIA_ALLOW_PRIVATE === 'true',
      });
    }
    try {
      input = this.upstreamInput(context, channel, upstreamModel, adapter.needsRemoteMedia);
      upstream = adapter.buildRequest(input);
    } catch (error) {
      if (error instanceof UpstreamLocalError) return { status: error.status, error: error.toOpenAIError(), local: true };
      throw error;
    }
    for (const [name, value] of Object.entries(channel.headerOverride ?? {})) {
      if (typeof value === 'string') upstream.headers[name.toLowerCase()] = value;
    }

    let answer;
    try {
      answer = await this.http.send(upstream, {
        headersTimeoutMs: this.relayTimeoutMs,
        bodyTimeoutMs: context.isStream ? this.streamingTimeoutMs : this.relayTimeoutMs,
        signal: context.request.signal,
      });
    } catch (error) {
      if (!(error instanceof UpstreamTransportError)) throw error;
      this.logger.warn(`channel #${channel.id}: ${error.message}`);
      return this.failed(channel, { status: 500, error: DO_REQUEST_FAILED, local: false }, context.request.signal.aborted);
    }

    const success = answer.status >= 200 && answer.status < 300;
    if (success && (context.isStream || answer.contentType.includes('text/event-stream'))) {
      await this.stream(context, channel, adapter, input, upstreamModel, answer);
      return null;
    }
    if (success && context.mode === 'audio-speech') {
      await this.pipeAudio(context, channel, upstreamModel, answer);
      return null;
    }

    let bodyBytes: Buffer;
    try {
      bodyBytes = await answer.body.bytes();
    } catch {
      return this.failed(channel, { status: 500, error: DO_REQUEST_FAILED, local: false }, context.request.signal.aborted);
    }
    const result = success
      ? adapter.parseResponse(input, { status: answer.status, contentType: answer.contentType, body: bodyBytes })
      : adapter.mapError(answer.status, bodyBytes);
    if (!result.ok) {
      return this.failed(channel, { status: applyStatusCodeMapping(channel, result.status), error: result.error, local: false });
    }
    await this.answerPlain(context, channel, input, upstreamModel, result, answer.headers);
    return null;
  }

  /**
   * Reports a failed attempt to the channel-health rules, unless `clientGone`: a call the relay aborted because its
   * client went away (a user pressing "stop") says nothing about the channel, and must not count toward disabling it.
   */
  private failed(channel: RoutableChannel, failure: AttemptFailure, clientGone = false): AttemptFailure {
    if (clientGone) return failure;
    // The type goes apart as well, as the channel test reports it: the health decider matches code and type against
    // its fatal lists (reference §3.7), so a fatal type is not hidden behind a code. errorCode keeps the type when
    // there is no code, for consumers that read errorCode alone.
    const code = failure.error.code === null || failure.error.code === undefined ? null : String(failure.error.code);
    this.outcomes.report({
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

  private upstreamInput(context: RelayContext, channel: RoutableChannel, upstreamModel: string, needsRemoteMedia = false): UpstreamRequestInput {
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

  private async answerPlain(
    context: RelayContext,
    channel: RoutableChannel,
    input: UpstreamRequestInput,
    upstreamModel: string,
    result: UpstreamSuccess,
    upstreamHeaders: Record<string, string | string[] | undefined>,
  ): Promise<void> {
    let usage: { promptTokens: number; completionTokens: number; cachedTokens: number };
    if (context.mode === 'images-generations') {
      usage = { promptTokens: this.imageCount(context), completionTokens: 0, cachedTokens: 0 };
    } else if (result.usage) {
      usage = this.fromTokenUsage(result.usage);
    } else {
      usage = {
        promptTokens: context.mode === 'audio-transcriptions' || context.mode === 'audio-translations' ? 0 : this.promptTokens(context, upstreamModel),
        completionTokens: result.completionText ? countTextTokens(result.completionText, upstreamModel) : 0,
        cachedTokens: 0,
      };
    }
    this.outcomes.report({ channelId: channel.id, ok: true, status: result.status, errorCode: null, message: '', source: 'relay' });
    await this.settle(context, channel, upstreamModel, usage, null);

    const response = context.response;
    if (response.destroyed) return;
    const headers: Record<string, string> = {};
    if (result.passthrough) {
      for (const [name, value] of Object.entries(upstreamHeaders)) {
        if (HOP_BY_HOP.has(name)) continue;
        const first = Array.isArray(value) ? value[0] : value;
        if (typeof first === 'string') headers[name] = first;
      }
    }
    headers['content-type'] = result.contentType || headers['content-type'] || 'application/json';
    headers['x-oneapi-request-id'] = context.request.requestId;
    const payload = typeof result.body === 'string' ? Buffer.from(result.body) : Buffer.from(result.body.buffer, result.body.byteOffset, result.body.byteLength);
    headers['content-length'] = String(payload.length);
    response.writeHead(result.status, headers);
    response.end(payload);
    void input;
  }

  /**
   * Text to speech: the upstream's audio goes to the client chunk by chunk as it arrives (no buffering of the
   * whole file), with the upstream's headers. The charge is the input (reference §4.4: characters for tts-*), so
   * it is settled once the audio has been passed on, before the response ends. An upstream that breaks off
   * mid-file breaks the client's response off too (a binary body has no error event) and still charges the input
   * it was sent. An answer without one byte of audio charges nothing and releases the reservation.
   */
  private async pipeAudio(
    context: RelayContext,
    channel: RoutableChannel,
    upstreamModel: string,
    answer: Awaited<ReturnType<UpstreamHttpClient['send']>>,
  ): Promise<void> {
    const response = context.response;
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      if (HOP_BY_HOP.has(name)) continue;
      const first = Array.isArray(value) ? value[0] : value;
      if (typeof first === 'string') headers[name] = first;
    }
    headers['content-type'] = answer.contentType || 'application/octet-stream';
    headers['x-oneapi-request-id'] = context.request.requestId;
    response.writeHead(200, headers);
    let bytes = 0;
    let broken = false;
    try {
      for await (const chunk of answer.body) {
        bytes += chunk.length;
        if (!response.destroyed && !response.write(chunk)) await waitForDrain(response);
      }
    } catch (error) {
      broken = true;
      this.logger.warn(`channel #${channel.id}: audio stream broke off after ${bytes} bytes: ${String((error as Error)?.message ?? error)}`);
      answer.body.destroy();
    }
    this.outcomes.report({ channelId: channel.id, ok: !broken, status: broken ? 502 : 200, errorCode: broken ? 'cut' : null, message: '', source: 'relay' });
    if (bytes > 0) {
      await this.settle(context, channel, upstreamModel, { promptTokens: this.promptTokens(context, upstreamModel), completionTokens: 0, cachedTokens: 0 }, null);
    } else {
      await this.release(context);
    }
    if (broken) response.destroy();
    else if (!response.destroyed) response.end();
  }

  private imageCount(context: RelayContext): number {
    const n = context.body.n;
    return typeof n === 'number' && n > 0 ? Math.trunc(n) : 1;
  }

  private fromTokenUsage(usage: TokenUsage): { promptTokens: number; completionTokens: number; cachedTokens: number } {
    return {
      promptTokens: usage.prompt_tokens,
      completionTokens: usage.completion_tokens,
      cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
    };
  }

  /**
   * Streams the upstream's answer chunk by chunk. From the first byte on there is no retry: a cut or an
   * upstream error becomes an error event for the client and what was delivered is billed.
   */
  private async stream(
    context: RelayContext,
    channel: RoutableChannel,
    adapter: UpstreamAdapter,
    input: UpstreamRequestInput,
    upstreamModel: string,
    answer: Awaited<ReturnType<UpstreamHttpClient['send']>>,
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
    const usage = this.streamUsage(context, summary, upstreamModel);
    const firstTokenMs = summary.firstTokenAt !== null ? Math.max(0, summary.firstTokenAt - context.startedAt) : 0;
    const ok = summary.end === 'done';
    // A stream cut because the client went away is no failure of the channel (see failed()).
    if (ok || !context.request.signal.aborted) {
      this.outcomes.report({
        channelId: channel.id,
        ok,
        status: ok ? 200 : 502,
        errorCode: ok ? null : (summary.error?.code === null || summary.error?.code === undefined ? summary.end : String(summary.error.code)),
        errorType: ok ? null : summary.error?.type || null,
        message: summary.error?.message ?? '',
        source: 'relay',
      });
    }
    await this.settle(context, channel, upstreamModel, usage, firstTokenMs);
    if (response.destroyed) return;
    const tokenUsage: TokenUsage = {
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.completionTokens,
      total_tokens: usage.promptTokens + usage.completionTokens,
    };
    response.end(transformer.trailer({ usage: summary.usage ?? tokenUsage, requestId: context.request.requestId }));
  }

  private streamUsage(context: RelayContext, summary: StreamSummary, upstreamModel: string) {
    if (summary.usage) return this.fromTokenUsage(summary.usage);
    const completion = countTextTokens(summary.completionText, upstreamModel) + 7 * summary.toolCallCount;
    return {
      promptTokens: summary.promptTokens ?? this.promptTokens(context, upstreamModel),
      completionTokens: completion,
      cachedTokens: 0,
    };
  }

  private async settle(
    context: RelayContext,
    channel: RoutableChannel,
    upstreamModel: string,
    usage: { promptTokens: number; completionTokens: number; cachedTokens: number },
    firstTokenMs: number | null,
  ): Promise<void> {
    const { caller, tables } = context;
    let pricing: ModelPricing;
    let quota: number;
    // The log wording is derived from the ratios by the logs projection; only an image's size and quality are not.
    let content: string | undefined;
    if (context.mode === 'images-generations') {
      const image = priceImageRequest(tables, context.body, upstreamModel, caller.group);
      pricing = { modelPrice: image.imageRatio, modelRatio: 0, completionRatio: 0, groupRatio: image.groupRatio };
      quota = image.quota;
      content = `${consumeContent(pricing, usage, false)} , 大小 ${image.size}, 品质 ${image.quality}`;
    } else {
      pricing = pricingFor(tables, upstreamModel, caller.group);
      quota = finalQuota(tables, pricing, usage);
    }
    const now = Date.now();
    const data: QuotaConsumedData = {
      requestId: context.request.requestId,
      userId: caller.user.id,
      username: caller.user.username,
      tokenId: caller.token.id,
      tokenName: caller.token.name,
      group: caller.group,
      modelName: context.model,
      upstreamModel,
      channelId: channel.id,
      channelName: channel.name,
      channelPath: [...context.channelPath],
      relayMode: context.mode,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      cachedTokens: usage.cachedTokens,
      modelRatio: pricing.modelRatio,
      completionRatio: pricing.completionRatio,
      groupRatio: pricing.groupRatio,
      modelPrice: pricing.modelPrice,
      quota,
      tokenUnlimited: context.reservedTokenId === null,
      isStream: context.isStream,
      useTimeSeconds: Math.floor((now - context.startedAt) / 1000),
      firstTokenMs: firstTokenMs ?? 0,
      createdAt: Math.floor(context.startedAt / 1000),
    };
    if (content !== undefined) data.content = content;
    if (!this.options.getBool('LogConsumeEnabled')) data.logConsume = false;
    try {
      await this.settlement.settle({
        data,
        userRole: caller.user.role,
        clientIp: context.request.clientIp,
        reservedTokenId: context.reservedTokenId,
        reservation: context.reservation ?? undefined,
      });
      this.admission.charged(context.request.requestId, quota);
    } catch (error) {
      if (context.reservation?.kind === 'block') this.admission.keepHeld(context.request.requestId);
      // The append may have committed before it failed: releasing now could free quota that was charged. Keep the
      // reservation held; its lease runs out and the sweep retires it once the projections pass the ledger head.
      context.reserved = false;
      throw error;
    }
    context.settled = true;
    context.reserved = false;
  }

  private answerError(request: RelayHttpRequest, response: ServerResponse, error: unknown, playground: boolean): void {
    let relayError: RelayError;
    if (error instanceof RelayError) relayError = error;
    else if (error instanceof UpstreamLocalError) relayError = relayLocal(error.status, error.message, error.code);
    else {
      this.logger.error(`${request.path} ${request.requestId}: ${(error as Error)?.stack ?? String(error)}`);
      relayError = relayLocal(500, playground ? 'internal error' : 'internal error', 'internal_error');
    }
    if (response.headersSent) {
      // A stream already started: the error goes out as one event in the client's protocol.
      if (!response.destroyed) response.end(`data: ${JSON.stringify(relayError.toBody(request.requestId))}\n\n`);
      return;
    }
    if (response.destroyed) return;
    const payload = JSON.stringify(relayError.toBody(request.requestId));
    response.writeHead(relayError.status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(payload)),
      'x-oneapi-request-id': request.requestId,
    });
    response.end(payload);
  }
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'proxy-connection', 'upgrade', 'trailer', 'te', 'date', 'server']);

function waitForDrain(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

export { withRequestId };
export type { UpstreamFailure };
