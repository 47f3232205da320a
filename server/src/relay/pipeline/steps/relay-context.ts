import type { ServerResponse } from 'node:http';
import type { Logger } from '@nestjs/common';
import type { OptionsService } from '#server/modules/options/index';
import type { InlineMedia, JsonObject, MultipartForm, RelayMode } from '#server/upstreams/upstream-adapter';
import type { UpstreamRegistry } from '#server/upstreams/upstream-registry';
import type { AdmittedBy, QuotaAdmissionService } from '../../admission/quota-admission.service';
import type { RelaySignal } from '../../http/client-gone-signal';
import type { PricingService, PricingTables } from '#server/modules/pricing/index';
import type { RelayAuthenticator, RelayCaller, RelayChannelRouter, RelayOutcomeReporter } from '../../relay-ports';
import type { RelaySettlementService } from '../../settlement/relay-settlement.service';
import type { UpstreamHttpClient } from '../../upstream-client/upstream-http-client';
import { countPromptTokens, defaultModelFor, engineModelOf } from '../relay-request';

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

/** What the steps work with, made once per process by RelayPipelineService: no lookup per request. */
export interface RelayDeps {
  readonly logger: Logger;
  readonly authenticator: RelayAuthenticator;
  readonly router: RelayChannelRouter;
  readonly outcomes: RelayOutcomeReporter;
  readonly admission: QuotaAdmissionService;
  readonly settlement: RelaySettlementService;
  readonly pricing: PricingService;
  readonly options: OptionsService;
  readonly http: UpstreamHttpClient;
  readonly registry: UpstreamRegistry;
  /** STREAMING_TIMEOUT: how long a streamed answer may stay silent. */
  readonly streamingTimeoutMs: number;
  /** RELAY_TIMEOUT: how long the upstream may take to answer (0: no limit). */
  readonly relayTimeoutMs: number;
  /** RELAY_DRAIN_AFTER_CLIENT_GONE_MS: how long an upstream that has the request is read on after the client left. */
  readonly drainAfterClientGoneMs: number;
  /** RELAY_MEDIA_ALLOW_PRIVATE: client image URLs may point at loopback, private and link-local addresses. */
  readonly allowPrivateMedia: boolean;
}

/**
 * One request on its way through the steps. Fields are set by createContext and only read afterwards, except
 * those marked with the step that writes them.
 */
export interface RelayContext {
  readonly request: RelayHttpRequest;
  readonly response: ServerResponse;
  readonly mode: RelayMode;
  readonly caller: RelayCaller;
  readonly playground: boolean;
  readonly body: JsonObject;
  /** Audio transcriptions and translations: the client's form, forwarded whole (fields and file). */
  readonly multipart: MultipartForm | null;
  readonly model: string;
  readonly isStream: boolean;
  readonly clientWantsUsage: boolean;
  readonly startedAt: number;
  readonly tables: PricingTables;
  /** Token id the reservation was made against (null: unlimited token, playground). */
  readonly reservedTokenId: number | null;
  /** Written by the service once reserve() admitted the request, cleared by release() and settle(). */
  reserved: boolean;
  /** The reservation that admitted the request: its own in Redis, or a share of a quota block (no lease of its own). Written by the service from reserve(). */
  reservation: AdmittedBy | null;
  /** Written by settle() once the charge is durable. */
  settled: boolean;
  /** Appended to by the attempt loop: every channel tried, in order. */
  readonly channelPath: number[];
  /** Filled by promptTokens(), one count per upstream model. */
  readonly promptTokensMemo: Map<string, number>;
  /** Remote images fetched once for adapters with `needsRemoteMedia` (null: not fetched yet). Written by the attempt loop. */
  media: Map<string, InlineMedia> | null;
}

export function header(headers: RelayHttpRequest['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function createContext(
  deps: RelayDeps,
  request: RelayHttpRequest,
  response: ServerResponse,
  mode: RelayMode,
  caller: RelayCaller,
  body: JsonObject,
  multipart: MultipartForm | null,
  playground: boolean,
): RelayContext {
  const model =
    typeof body.model === 'string' && body.model !== ''
      ? body.model
      : ((mode === 'embeddings' ? engineModelOf(request.path) : null) ?? defaultModelFor(mode));
  const streamable = mode === 'chat' || mode === 'completions';
  const isStream = streamable && body.stream === true;
  const streamOptions = body.stream_options;
  const clientWantsUsage =
    isStream && typeof streamOptions === 'object' && streamOptions !== null && (streamOptions as JsonObject).include_usage === true;
  return {
    request,
    response,
    mode,
    caller,
    playground,
    body,
    multipart,
    model,
    isStream,
    clientWantsUsage,
    startedAt: Date.now(),
    tables: deps.pricing.tables(),
    reservedTokenId: playground || caller.token.unlimitedQuota ? null : caller.token.id,
    reserved: false,
    reservation: null,
    settled: false,
    channelPath: [],
    promptTokensMemo: new Map(),
    media: null,
  };
}

/** The prompt's tokens for one upstream model, counted at most once per request (images count none). */
export function promptTokens(context: RelayContext, upstreamModel: string): number {
  let tokens = context.promptTokensMemo.get(upstreamModel);
  if (tokens === undefined) {
    tokens = context.mode === 'images-generations' ? 0 : countPromptTokens(context.mode, context.body, upstreamModel);
    context.promptTokensMemo.set(upstreamModel, tokens);
  }
  return tokens;
}
