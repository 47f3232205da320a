import type { ServerResponse } from 'node:http';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { APP_CONFIG, type AppConfig, CONFIG_DEFAULTS } from '../../config/app-config';
import { OptionsService } from '../../modules/options';
import type { RelayMode } from '../../upstreams/upstream-adapter';
import { createUpstreamRegistry } from '../../upstreams/upstream-registry';
import { QuotaAdmissionService } from '../admission/quota-admission.service';
import { LeaseRenewer } from '../leases/lease-renewer';
import { PricingService } from '../../modules/pricing';
import {
  RELAY_AUTHENTICATOR,
  RELAY_CHANNEL_ROUTER,
  RELAY_OUTCOME_REPORTER,
  type RelayAuthenticator,
  type RelayChannelRouter,
  type RelayOutcomeReporter,
} from '../relay-ports';
import { RelaySettlementService } from '../settlement/relay-settlement.service';
import { UpstreamHttpClient } from '../upstream-client/upstream-http-client';
import { relayAuthorization } from './relay-authorization';
import { price, release, reserve } from './steps/admission';
import { attempts } from './steps/attempt-loop';
import { answerError, relayLocal } from './steps/error-answer';
import { checkSensitiveWords, parseBody, validateRequest } from './steps/parse-request';
import { type PlaygroundCaller, playgroundCaller } from './steps/playground-caller';
import { createContext, type RelayContext, type RelayDeps, type RelayHttpRequest } from './steps/relay-context';
import { firstChannel, upstreamModelFor } from './steps/select-channel';

export type { PlaygroundCaller, RelayHttpRequest };

export type RelayPipelineConfig = Pick<
  AppConfig,
  | 'FORCE_STREAM_OPTION'
  | 'GEMINI_SAFETY_SETTING'
  | 'DIFY_DEBUG'
  | 'STREAMING_TIMEOUT'
  | 'RELAY_TIMEOUT'
  | 'RELAY_MEDIA_ALLOW_PRIVATE'
  | 'RELAY_DRAIN_AFTER_CLIENT_GONE_MS'
>;

/**
 * The relay hot path, one step per file in `steps/`: authenticate → parse → price → reserve → select → call
 * upstream → answer → settle → report. No database round trip before the upstream call in the common case (token,
 * channel and option lookups are in-process caches; admission is Redis). Every request that got an answer appends
 * exactly one QuotaConsumed; every request that failed before an answer releases its reservation and appends nothing.
 * A client that leaves does not end the upstream's work: a request the upstream has is read on for at most
 * RELAY_DRAIN_AFTER_CLIENT_GONE_MS and charged (endReason client_gone); one it never received is charged nothing.
 */
@Injectable()
export class RelayPipelineService {
  private readonly deps: RelayDeps;
  private readonly leases: LeaseRenewer;

  constructor(
    @Inject(RELAY_AUTHENTICATOR) authenticator: RelayAuthenticator,
    @Inject(RELAY_CHANNEL_ROUTER) router: RelayChannelRouter,
    @Inject(RELAY_OUTCOME_REPORTER) outcomes: RelayOutcomeReporter,
    admission: QuotaAdmissionService,
    settlement: RelaySettlementService,
    pricing: PricingService,
    options: OptionsService,
    http: UpstreamHttpClient,
    /** Absent in specs that build the pipeline by hand: the defaults. */
    @Optional() @Inject(APP_CONFIG) config: RelayPipelineConfig | null = null,
  ) {
    const settings = config ?? CONFIG_DEFAULTS;
    this.deps = {
      logger: new Logger('Relay'),
      authenticator,
      router,
      outcomes,
      admission,
      settlement,
      pricing,
      options,
      http,
      registry: createUpstreamRegistry({
        forceStreamUsage: settings.FORCE_STREAM_OPTION,
        geminiSafetyThreshold: settings.GEMINI_SAFETY_SETTING,
        difyDebug: settings.DIFY_DEBUG,
      }),
      streamingTimeoutMs: settings.STREAMING_TIMEOUT * 1000,
      relayTimeoutMs: settings.RELAY_TIMEOUT * 1000,
      drainAfterClientGoneMs: settings.RELAY_DRAIN_AFTER_CLIENT_GONE_MS,
      allowPrivateMedia: settings.RELAY_MEDIA_ALLOW_PRIVATE,
    };
    // Reservations are made and renewed with admission's lease (RELAY_LEASE_MS), renewed at a third.
    const leaseMs = admission.leaseMs;
    this.leases = new LeaseRenewer((requestId, userId) => admission.renew({ requestId, userId, leaseMs }), Math.floor(leaseMs / 3));
  }

  /** Handles one request and writes the whole answer to `response`; never throws. */
  async handle(request: RelayHttpRequest, response: ServerResponse, mode: RelayMode, playground?: PlaygroundCaller): Promise<void> {
    const deps = this.deps;
    let context: RelayContext | null = null;
    try {
      // Authenticate: a token (the playground's session user was checked by the console's guard).
      const caller = playground
        ? null
        : await deps.authenticator.authenticate(relayAuthorization(request.headers), request.clientIp, undefined, {
            quotaByReservation: true,
          });
      if (playground?.useAccessToken) throw relayLocal(400, '暂不支持使用 access token', 'access_token_not_supported');
      // Parse once.
      const { body, multipart } = parseBody(request, mode, Boolean(playground));
      const resolvedCaller = caller ?? playgroundCaller(deps.options, playground!, body);
      context = createContext(deps, request, response, mode, resolvedCaller, body, multipart, Boolean(playground));
      await this.run(context);
    } catch (error) {
      if (context?.reserved && !context.settled) await release(deps, context);
      answerError(deps.logger, request, response, error);
    }
  }

  private async run(context: RelayContext): Promise<void> {
    const deps = this.deps;
    validateRequest(context);
    // Before channel selection and reservation: a refused prompt is charged nothing and reserves nothing.
    checkSensitiveWords(deps.options, context);

    // Select the first channel, price and reserve against its mapped model (new-api v0.3 prices the mapped name).
    const channel = firstChannel(deps.router, context);
    const priced = price(context, upstreamModelFor(context, channel));
    context.reservation = await reserve(deps, context, priced.reservation, priced.referencePre);
    context.reserved = true;

    // One shared timer renews every held lease (no setInterval per request). A request admitted from a quota block
    // has no lease of its own: the block's lease covers it.
    const ownLease = context.reservation.kind === 'request';
    if (ownLease) this.leases.hold(context.request.requestId, context.caller.user.id);
    try {
      // Call upstream, answer (stream, plain or audio), settle and report, channel after channel.
      await attempts(deps, context, channel, context.caller.specificChannelId !== null);
    } finally {
      if (ownLease) this.leases.release(context.request.requestId);
    }
  }
}
