import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { type MetadataInput, userActor } from '../../ledger/event-envelope';
import { OptionsService } from '../../modules/options';
import { PricingService } from '../../modules/pricing';
import { type SunoTaskFacts, SunoTaskLedger, TaskReader } from '../../modules/tasks';
import { AdmissionUnavailableError, QuotaAdmissionService } from '../admission/quota-admission.service';
import { QUOTA_SERVICE_UNAVAILABLE } from '../pipeline/steps/admission';
import { relayAuthorization } from '../pipeline/relay-authorization';
import type { RelayHttpRequest } from '../pipeline/relay-pipeline.service';
import { RelayError } from '../relay-error';
import {
  RELAY_AUTHENTICATOR,
  RELAY_CHANNEL_ROUTER,
  type RelayAuthenticator,
  type RelayCaller,
  type RelayChannelRouter,
  type RoutableChannel,
} from '../relay-ports';
import { RelaySettlementService } from '../settlement/relay-settlement.service';
import { taskPrice } from '../task/fixed-price';
import { chargeTaskWithRecord } from '../task/task-charge';
import {
  errorMessage,
  localTaskError,
  sendTaskError,
  sendTaskJson,
  SUNO_SATURATED,
  SunoTaskError,
  sunoAnswer,
  taskJsonBody,
} from './suno-http';
import { shouldRetryTask, type SunoSubmit, sunoSubmitOf } from './suno-request';

/** The upstream call's timeout. */
const SUBMIT_TIMEOUT_MS = 60_000;
/** The reservation outlives the upstream calls if this process dies meanwhile; then it lapses. */
const SUBMIT_LEASE_MS = 5 * 60_000;
/** Suno's channel type (SunoAPI). */
const SUNO_CHANNEL_TYPE = 36;

interface Accepted {
  channel: RoutableChannel;
  upstreamTaskId: string;
  status: number;
  text: string;
  contentType: string | undefined;
}

/**
 * The Suno submits (relay-behaviour.md §7.2): token auth, the action and its priced model, a continuation sent to
 * its original task's channel, admission of the price (403 quota_not_enough), the upstream call with new-api's
 * task retry rule (never a 400), then — only when the upstream took the task — the one charge (QuotaConsumed
 * through the settlement) appended together with the task's first event, with its action recorded (a task append
 * refused alone gives the charge back at once: task_write_failed). The upstream's answer is relayed verbatim.
 */
@Injectable()
export class SunoSubmitService {
  private readonly logger = new Logger('Suno');

  constructor(
    @Inject(RELAY_AUTHENTICATOR) private readonly authenticator: RelayAuthenticator,
    @Inject(RELAY_CHANNEL_ROUTER) private readonly router: RelayChannelRouter,
    private readonly admission: QuotaAdmissionService,
    private readonly settlement: RelaySettlementService,
    private readonly pricing: PricingService,
    private readonly options: OptionsService,
    private readonly tasks: SunoTaskLedger,
    private readonly reader: TaskReader,
  ) {}

  async submit(actionParam: string, request: RelayHttpRequest, response: ServerResponse): Promise<void> {
    const { requestId } = request;
    let reserved: { userId: number; tokenId: number | null } | null = null;
    try {
      const submit = sunoSubmitOf(actionParam, taskJsonBody(request.rawBody));
      const caller = await this.authenticator.authenticate(relayAuthorization(request.headers), request.clientIp, submit.model, {
        quotaByReservation: true,
      });
      const { channel, pinned } = await this.channelFor(caller, submit);
      const price = taskPrice(this.pricing.tables(), submit.model, caller.group);
      const tokenId = caller.token.unlimitedQuota ? null : caller.token.id;
      const admitted = await this.admission
        .reserve({ requestId, userId: caller.user.id, tokenId, amount: price.quota, leaseMs: SUBMIT_LEASE_MS })
        .catch((error: unknown) => {
          // Redis stayed unreachable for RELAY_ADMISSION_REDIS_WAIT_MS: nothing reserved, nothing submitted.
          if (error instanceof AdmissionUnavailableError) throw localTaskError('quota_service_unavailable', QUOTA_SERVICE_UNAVAILABLE, 503);
          throw error;
        });
      if (!admitted.ok) throw localTaskError('quota_not_enough', 'user quota is not enough', 403);
      reserved = { userId: caller.user.id, tokenId };
      const accepted = await this.attempts(caller, submit, channel, pinned);
      const facts = this.facts(requestId, caller, accepted, submit, price.quota);
      const metadata: MetadataInput = {
        correlationId: requestId,
        actor: userActor(caller.user.id, caller.user.role),
        clientIp: request.clientIp,
        reasonCode: 'suno_submit',
      };
      // The charge and the task's first event in one append: never charged for a task that does not exist.
      const outcome = await chargeTaskWithRecord(
        { settlement: this.settlement, admission: this.admission, options: this.options },
        {
          requestId,
          clientIp: request.clientIp,
          caller,
          channel: accepted.channel,
          model: submit.model,
          relayMode: 'suno',
          price,
          quota: price.quota,
          tokenId,
          content: `模型固定价格 ${price.modelPrice.toFixed(2)}，分组倍率 ${price.groupRatio.toFixed(2)}，操作 ${submit.action}`,
          reservation: admitted.reservation,
        },
        this.tasks.submission(facts, metadata),
      ).catch((error: unknown) => {
        // The store failed every attempt: nothing, or the charge with its task, committed (never one without the other).
        this.logger.error(`task ${requestId} and its charge not written: ${errorMessage(error)}`);
        throw localTaskError('insert_task_failed', 'insert_task_failed', 500);
      });
      reserved = null;
      if (!outcome.recorded) {
        this.logger.error(`task ${requestId} not recorded, its charge is refunded: ${outcome.error.message}`);
        await this.tasks.visible(await this.tasks.refundUnrecorded(facts, requestId));
        throw localTaskError('insert_task_failed', 'insert_task_failed', 500);
      }
      await this.tasks.visible(outcome.position);
      sendTaskJson(response, requestId, accepted.status, accepted.text, accepted.contentType);
    } catch (error) {
      if (reserved) await this.release(requestId, reserved);
      if (error instanceof SunoTaskError && error.status === 429) {
        sendTaskError(response, requestId, new SunoTaskError(error.code, SUNO_SATURATED, 429, error.local));
        return;
      }
      sendTaskError(response, requestId, error);
    }
  }

  /** new-api's task retry loop: up to RetryTimes more channels (priority index from 0 again), never a pinned one. */
  private async attempts(caller: RelayCaller, submit: SunoSubmit, first: RoutableChannel, pinned: boolean): Promise<Accepted> {
    const retryTimes = pinned ? 0 : this.pricing.retryTimes();
    const tried = new Set<number>();
    let channel = first;
    for (let attempt = 0; ; attempt++) {
      tried.add(channel.id);
      try {
        return await this.attempt(channel, submit);
      } catch (error) {
        const failure = error instanceof SunoTaskError ? error : new SunoTaskError('do_request_failed', errorMessage(error), 500);
        if (attempt >= retryTimes || !shouldRetryTask(failure.status, failure.local)) throw failure;
        const next = this.router.select(caller.group, submit.model, { retry: attempt, exclude: tried });
        if (!next || next.type !== SUNO_CHANNEL_TYPE) throw failure;
        this.logger.warn(`suno submit on channel ${channel.id} failed (${failure.status} ${failure.code}); retrying on ${next.id}`);
        channel = next;
      }
    }
  }

  private async attempt(channel: RoutableChannel, submit: SunoSubmit): Promise<Accepted> {
    const base = channel.baseUrl.replace(/\/+$/, '');
    let answer: Response;
    try {
      answer = await fetch(`${base}/suno/submit/${submit.action}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${channel.key}` },
        body: JSON.stringify(submit.body),
        signal: AbortSignal.timeout(SUBMIT_TIMEOUT_MS),
      });
    } catch (error) {
      throw new SunoTaskError('do_request_failed', errorMessage(error), 500);
    }
    const text = await answer.text();
    if (answer.status !== 200) throw new SunoTaskError('fail_to_fetch_task', text, answer.status);
    const parsed = sunoAnswer(text);
    if (!parsed) throw new SunoTaskError('unmarshal_response_body_failed', text, 500);
    if (parsed.code !== 'success') throw new SunoTaskError(parsed.code, parsed.message, 500);
    const upstreamTaskId = typeof parsed.data === 'string' ? parsed.data : '';
    return { channel, upstreamTaskId, status: answer.status, text, contentType: answer.headers.get('content-type') ?? undefined };
  }

  /** A continuation goes to its original task's channel (which must be enabled); else the token's or a routed one. */
  private async channelFor(caller: RelayCaller, submit: SunoSubmit): Promise<{ channel: RoutableChannel; pinned: boolean }> {
    if (submit.originTaskId !== null) {
      const origin = await this.reader.findOwned(caller.user.id, submit.originTaskId);
      if (!origin) throw localTaskError('task_not_exist', 'task_origin_not_exist');
      const channel = this.router.get(origin.channelId);
      if (!channel || channel.status !== 1) throw localTaskError('task_channel_disable', '该任务所属渠道已被禁用');
      return { channel, pinned: true };
    }
    const pinned = caller.specificChannelId !== null;
    const channel = pinned ? this.router.get(caller.specificChannelId!) : this.router.select(caller.group, submit.model);
    if (!channel || channel.status !== 1 || channel.type !== SUNO_CHANNEL_TYPE) {
      throw new RelayError(503, `当前分组 ${caller.group} 下对于模型 ${submit.model} 无可用渠道`);
    }
    return { channel, pinned };
  }

  private facts(taskId: string, caller: RelayCaller, accepted: Accepted, submit: SunoSubmit, quota: number): SunoTaskFacts {
    return {
      taskId,
      upstreamTaskId: accepted.upstreamTaskId,
      userId: caller.user.id,
      username: caller.user.username,
      tokenId: caller.token.id,
      tokenUnlimited: caller.token.unlimitedQuota,
      channelId: accepted.channel.id,
      action: submit.action,
      quota,
      properties: JSON.stringify({ input: submit.input }),
      status: 'NOT_START',
      failReason: '',
      submitTime: Math.floor(Date.now() / 1000),
      startTime: 0,
      finishTime: 0,
      progress: '0%',
      data: '',
    };
  }

  private async release(requestId: string, reserved: { userId: number; tokenId: number | null }): Promise<void> {
    await this.admission
      .release({ requestId, userId: reserved.userId, tokenId: reserved.tokenId })
      .catch((error: unknown) => this.logger.error(`release failed for ${requestId}: ${String(error)}`));
  }
}
