import type { AppendRequest } from '../../ledger/event-store.port';
import type { QuotaConsumedData } from '../../modules/accounts';
import type { OptionsService } from '../../modules/options';
import type { QuotaAdmissionService } from '../admission/quota-admission.service';
import type { RelayCaller, RoutableChannel } from '../relay-ports';
import type { RelaySettlementService } from '../settlement/relay-settlement.service';

export interface TaskCharge {
  requestId: string;
  clientIp: string;
  caller: RelayCaller;
  channel: RoutableChannel;
  model: string;
  relayMode: string;
  price: { modelPrice: number; groupRatio: number };
  quota: number;
  /** The token whose remaining quota pays (null: an unlimited token). */
  tokenId: number | null;
  /** The log line (`模型固定价格 …，操作 …`). */
  content: string;
  reservation: { id: string; kind: 'request' | 'block' };
}

/** How often the charge-and-task append is tried when the store itself failed (its outcome then unknown). */
const CHARGE_ATTEMPTS = 3;

export type TaskChargeDeps = { settlement: RelaySettlementService; admission: QuotaAdmissionService; options: OptionsService };

/** What the charge-and-task append came to. */
export type TaskChargeOutcome =
  /** Both committed: the position to wait for before the task (and the charge) are visible. */
  | { recorded: true; position: number }
  /** The charge committed and the task's append was refused: the caller refunds the charge (task_write_failed). */
  | { recorded: false; position: number; error: Error };

/**
 * The one charge of an accepted task submit (Midjourney, Suno): a QuotaConsumed at the task's fixed price, from the
 * user and the paying token, like any relayed request, appended with the task's first event (`task`: its id derived
 * from the task, expected `no_stream`) by RelaySettlementService.settleWith: one transaction on Postgres; elsewhere
 * the charge first and the task only once it is in, so a task never exists unpaid. A store failure (outcome unknown)
 * is retried with the same ids, a no-op for what had committed; after the last attempt the error is thrown (no
 * task was written; the charge was not, or on Postgres neither was).
 */
export async function chargeTaskWithRecord(deps: TaskChargeDeps, charge: TaskCharge, task: AppendRequest): Promise<TaskChargeOutcome> {
  const input = settlementInput(deps, charge);
  for (let attempt = 1; ; attempt++) {
    let settled: Awaited<ReturnType<RelaySettlementService['settleWith']>>;
    try {
      settled = await deps.settlement.settleWith(input, [task]);
    } catch (error) {
      if (attempt >= CHARGE_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      continue;
    }
    deps.admission.charged(charge.requestId, charge.quota);
    const outcome = settled.companions[0];
    if (!outcome.ok) return { recorded: false, position: settled.position, error: outcome.error };
    return { recorded: true, position: Math.max(settled.position, outcome.result.position) };
  }
}

function settlementInput(deps: TaskChargeDeps, charge: TaskCharge) {
  const { caller, channel } = charge;
  const data: QuotaConsumedData = {
    requestId: charge.requestId,
    userId: caller.user.id,
    username: caller.user.username,
    tokenId: caller.token.id,
    tokenName: caller.token.name,
    group: caller.group,
    modelName: charge.model,
    upstreamModel: charge.model,
    channelId: channel.id,
    channelName: channel.name,
    channelPath: [channel.id],
    relayMode: charge.relayMode,
    promptTokens: 0,
    completionTokens: 0,
    cachedTokens: 0,
    modelRatio: 0,
    completionRatio: 0,
    groupRatio: charge.price.groupRatio,
    modelPrice: charge.price.modelPrice,
    quota: charge.quota,
    tokenUnlimited: charge.tokenId === null,
    isStream: false,
    useTimeSeconds: 0,
    firstTokenMs: 0,
    content: charge.content,
    createdAt: Math.floor(Date.now() / 1000),
  };
  if (!deps.options.getBool('LogConsumeEnabled')) data.logConsume = false;
  if (!deps.options.getBool('DataExportEnabled')) data.dataExport = false;
  return {
    data,
    userRole: caller.user.role,
    clientIp: charge.clientIp,
    reservedTokenId: charge.tokenId,
    reservation: charge.reservation,
  };
}
