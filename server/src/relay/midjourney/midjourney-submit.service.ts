import { Inject, Injectable, Logger } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { type MetadataInput, userActor } from '../../ledger/event-envelope';
import { OptionsService } from '../../modules/options';
import { PricingService } from '../../modules/pricing';
import { type MidjourneyTaskFacts, MidjourneyTaskLedger, MidjourneyTaskReader } from '../../modules/tasks';
import { AdmissionUnavailableError, QuotaAdmissionService } from '../admission/quota-admission.service';
import { QUOTA_SERVICE_UNAVAILABLE } from '../pipeline/steps/admission';
import { relayAuthorization } from '../pipeline/relay-authorization';
import type { RelayHttpRequest } from '../pipeline/relay-pipeline.service';
import {
  RELAY_AUTHENTICATOR,
  RELAY_CHANNEL_ROUTER,
  type RelayAuthenticator,
  type RelayCaller,
  type RelayChannelRouter,
} from '../relay-ports';
import { RelaySettlementService } from '../settlement/relay-settlement.service';
import type { RoutableChannel } from '../relay-ports';
import {
  isAccepted,
  isFreeAction,
  MjRequestError,
  type MjSubmit,
  type MjSubmitKind,
  mjSubmitOf,
  rewriteResultCode,
  upstreamBody,
  upstreamPath,
} from './midjourney-actions';
import { jsonBody, mjResult, postUpstream, sendMjError, sendMjRaw } from './midjourney-http';
import { mjPrice } from './midjourney-price';
import { chargeTaskWithRecord, type TaskChargeOutcome } from '../task/task-charge';

/** new-api's submit timeout. */
const SUBMIT_TIMEOUT_MS = 60_000;
/** The reservation outlives the upstream call if this process dies meanwhile; then it lapses. */
const SUBMIT_LEASE_MS = 90_000;
/** How often a submitted task's stream append is tried before the answer gives up. */
const RECORD_ATTEMPTS = 3;
const SATURATED = '当前分组负载已饱和，请稍后再试，或升级账户以提升服务质量。';

/**
 * The Midjourney submits (relay-behaviour.md §7.1): token auth (`mj-api-secret` too), the action and its priced
 * model, an action task sent to its original task's channel, admission of the price, the upstream call, then —
 * only when the upstream took the task — the one charge (QuotaConsumed through the relay's settlement, like any
 * relayed request) appended together with the task's first event (chargeTaskWithRecord), so a user is never charged
 * for a task that does not exist; if the task's append alone is refused, the charge is refunded at once
 * (task_write_failed). A refused submit is stored with its reason and charged nothing.
 */
@Injectable()
export class MidjourneySubmitService {
  private readonly logger = new Logger('Midjourney');

  constructor(
    @Inject(RELAY_AUTHENTICATOR) private readonly authenticator: RelayAuthenticator,
    @Inject(RELAY_CHANNEL_ROUTER) private readonly router: RelayChannelRouter,
    private readonly admission: QuotaAdmissionService,
    private readonly settlement: RelaySettlementService,
    private readonly pricing: PricingService,
    private readonly options: OptionsService,
    private readonly tasks: MidjourneyTaskLedger,
    private readonly reader: MidjourneyTaskReader,
  ) {}

  async submit(kind: MjSubmitKind, request: RelayHttpRequest, response: ServerResponse): Promise<void> {
    const { requestId } = request;
    let reserved: { userId: number; tokenId: number | null } | null = null;
    try {
      const body = jsonBody(request.rawBody);
      const submit = mjSubmitOf(kind, body);
      const caller = await this.authenticator.authenticate(relayAuthorization(request.headers), request.clientIp, submit.model, {
        quotaByReservation: true,
      });
      const { channel, prompt } = await this.channelFor(caller, submit);
      const tables = this.pricing.tables();
      const price = mjPrice(tables, submit.model, caller.group);
      const quota = isFreeAction(submit.action) ? 0 : price.quota;
      const tokenId = caller.token.unlimitedQuota ? null : caller.token.id;
      let reservation: { id: string; kind: 'request' | 'block' } | undefined;
      if (quota > 0) {
        const admitted = await this.admission
          .reserve({ requestId, userId: caller.user.id, tokenId, amount: quota, leaseMs: SUBMIT_LEASE_MS })
          .catch((error: unknown) => {
            // Redis stayed unreachable for RELAY_ADMISSION_REDIS_WAIT_MS: nothing reserved, nothing submitted.
            if (error instanceof AdmissionUnavailableError) throw new MjRequestError(QUOTA_SERVICE_UNAVAILABLE, 4, 503);
            throw error;
          });
        if (!admitted.ok) throw new MjRequestError('quota_not_enough');
        reservation = admitted.reservation;
        reserved = { userId: caller.user.id, tokenId };
      }
      const forwarded = upstreamBody(body, {
        accountFilter: this.options.getBool('MjAccountFilterEnabled'),
        notifyHook: this.options.getBool('MjNotifyEnabled'),
        modeClear: this.options.getBool('MjModeClearEnabled'),
      });
      const base = channel.baseUrl.replace(/\/+$/, '');
      const answer = await postUpstream(`${base}${upstreamPath(request.path)}`, channel.key, forwarded, request.headers, SUBMIT_TIMEOUT_MS);
      const result = mjResult(answer.text);
      if (!result) throw new MjRequestError(`unmarshal_response_body_failed`, 4, 400, 'upstream_error');
      if (result.code === 30) {
        throw new MjRequestError(`${result.description} ${SATURATED}`, 30, 429, 'upstream_error');
      }
      const charged = answer.status === 200 && isAccepted(submit.action, result.code) && quota > 0;
      const facts = this.taskFacts(requestId, caller, channel, submit, prompt, charged ? quota : 0, result, answer.status, Date.now());
      const metadata: MetadataInput = {
        correlationId: requestId,
        actor: userActor(caller.user.id, caller.user.role),
        clientIp: request.clientIp,
        reasonCode: 'mj_submit',
      };
      let position: number;
      if (charged) {
        // The charge and the task's first event in one append: never charged for a task that does not exist.
        const outcome = await this.charge(
          request,
          caller,
          channel,
          submit,
          price,
          quota,
          tokenId,
          result.result,
          reservation!,
          facts,
          metadata,
        );
        reserved = null;
        if (!outcome.recorded) {
          this.logger.error(`task ${requestId} not recorded, its charge is refunded: ${outcome.error.message}`);
          await this.tasks.visible(await this.tasks.refundUnrecorded(facts, requestId));
          throw new MjRequestError('insert_midjourney_task_failed', 4, 500);
        }
        position = outcome.position;
      } else {
        if (reserved) {
          await this.release(requestId, reserved);
          reserved = null;
        }
        position = (await this.record(facts, metadata)).position;
      }
      await this.tasks.visible(position);
      sendMjRaw(response, requestId, answer.status, rewriteResultCode(answer.text, submit.action));
    } catch (error) {
      if (reserved) await this.release(requestId, reserved);
      sendMjError(response, requestId, error);
    }
  }

  /**
   * The stream of a task that is not charged (refused upstream, or free): tried a few times (a submit is decided once
   * per task, so a retry after an append that did commit is a no-op).
   */
  private async record(facts: MidjourneyTaskFacts, metadata: MetadataInput): Promise<{ position: number }> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.tasks.submit(facts, metadata);
      } catch (error) {
        if (attempt >= RECORD_ATTEMPTS) throw error;
        this.logger.warn(`task ${facts.taskId} not recorded (attempt ${attempt}): ${(error as Error)?.message ?? String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
  }

  /** An action task goes to its original task's channel (which must be enabled) with the original prompt. */
  private async channelFor(caller: RelayCaller, submit: MjSubmit): Promise<{ channel: RoutableChannel; prompt: string }> {
    if (submit.originalTaskId !== null) {
      const original = await this.reader.findOwned(caller.user.id, submit.originalTaskId);
      if (!original) throw new MjRequestError('task_not_found');
      if (submit.action !== 'MODAL' && this.options.getBool('MjActionCheckSuccessEnabled') && original.status !== 'SUCCESS') {
        throw new MjRequestError('task_status_not_success');
      }
      const channel = this.router.get(original.channelId);
      if (!channel || channel.status !== 1) throw new MjRequestError('该任务所属渠道已被禁用');
      return { channel, prompt: original.prompt };
    }
    const channel =
      caller.specificChannelId !== null ? this.router.get(caller.specificChannelId) : this.router.select(caller.group, submit.model);
    if (!channel || channel.status !== 1 || (channel.type !== 2 && channel.type !== 5)) {
      throw new MjRequestError(`当前分组 ${caller.group} 下对于模型 ${submit.model} 无可用渠道`, 4, 503);
    }
    return { channel, prompt: submit.prompt };
  }

  private charge(
    request: RelayHttpRequest,
    caller: RelayCaller,
    channel: RoutableChannel,
    submit: MjSubmit,
    price: { modelPrice: number; groupRatio: number },
    quota: number,
    tokenId: number | null,
    mjId: string,
    reservation: { id: string; kind: 'request' | 'block' },
    facts: MidjourneyTaskFacts,
    metadata: MetadataInput,
  ): Promise<TaskChargeOutcome> {
    return chargeTaskWithRecord(
      { settlement: this.settlement, admission: this.admission, options: this.options },
      {
        requestId: request.requestId,
        clientIp: request.clientIp,
        caller,
        channel,
        model: submit.model,
        relayMode: 'midjourney',
        price,
        quota,
        tokenId,
        content: `模型固定价格 ${price.modelPrice.toFixed(2)}，分组倍率 ${price.groupRatio.toFixed(2)}，操作 ${submit.action}，ID ${mjId}`,
        reservation,
      },
      this.tasks.submission(facts, metadata),
    ).catch((error: unknown) => {
      // The store failed every attempt: nothing, or the charge with its task, committed (never one without the other).
      this.logger.error(`task ${request.requestId} and its charge not written: ${(error as Error)?.message ?? String(error)}`);
      throw new MjRequestError('insert_midjourney_task_failed', 4, 500);
    });
  }

  private async release(requestId: string, reserved: { userId: number; tokenId: number | null }): Promise<void> {
    await this.admission
      .release({ requestId, userId: reserved.userId, tokenId: reserved.tokenId })
      .catch((error: unknown) => this.logger.error(`release failed for ${requestId}: ${String(error)}`));
  }

  private taskFacts(
    taskId: string,
    caller: RelayCaller,
    channel: RoutableChannel,
    submit: MjSubmit,
    prompt: string,
    quota: number,
    result: NonNullable<ReturnType<typeof mjResult>>,
    status: number,
    now: number,
  ): MidjourneyTaskFacts {
    const accepted = status === 200 && isAccepted(submit.action, result.code);
    const facts: MidjourneyTaskFacts = {
      taskId,
      userId: caller.user.id,
      username: caller.user.username,
      tokenId: caller.token.id,
      tokenUnlimited: caller.token.unlimitedQuota,
      channelId: channel.id,
      action: submit.action,
      mjId: result.result,
      prompt,
      quota,
      code: result.code,
      promptEn: '',
      description: result.description,
      state: '',
      submitTime: now,
      startTime: 0,
      finishTime: 0,
      imageUrl: '',
      status: '',
      progress: '0%',
      failReason: accepted ? '' : result.description,
      buttons: '',
      properties: '',
    };
    // "Already exists" and finished: stored as finished (and answered as submitted).
    if (result.code === 21 && result.properties.status === 'SUCCESS') {
      facts.code = 1;
      facts.status = 'SUCCESS';
      facts.progress = '100%';
      facts.finishTime = now;
      facts.imageUrl = typeof result.properties.imageUrl === 'string' ? result.properties.imageUrl : '';
    }
    if (submit.action === 'UPLOAD' && result.code === 1) {
      facts.status = 'SUCCESS';
      facts.progress = '100%';
    }
    return facts;
  }
}
