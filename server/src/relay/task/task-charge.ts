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

/**
 * The one charge of an accepted task submit (Midjourney, Suno): a QuotaConsumed through the relay's settlement,
 * like any relayed request, at the task's fixed price, from the user and the paying token.
 */
export async function chargeTask(
  deps: { settlement: RelaySettlementService; admission: QuotaAdmissionService; options: OptionsService },
  charge: TaskCharge,
): Promise<void> {
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
  await deps.settlement.settle({
    data,
    userRole: caller.user.role,
    clientIp: charge.clientIp,
    reservedTokenId: charge.tokenId,
    reservation: charge.reservation,
  });
  deps.admission.charged(charge.requestId, charge.quota);
}
