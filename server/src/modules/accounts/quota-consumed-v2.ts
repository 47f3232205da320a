import { CHARGE_END_REASONS, type QuotaConsumedData, USAGE_SOURCES } from './quota-consumed.event';
import {
  admissionBase,
  applyFlags,
  Fields,
  flagsOf,
  parseRow,
  type PositionalContext,
  type PositionalDecoded,
  positionalField,
  samePath,
} from './quota-consumed-positional';

/**
 * The v2 shape of a stored QuotaConsumed (written from the first compact charge of issue 20 until v3; docs/ledger.md):
 * every position always present, `content` appended when the charge has its own wording. No longer written by the
 * relay; read forever, and written by specs and the storage benchmark that compare the shapes.
 */

/** The positions of the v2 array. Frozen: v2 gets no new fields (v3 does). */
const V2 = {
  requestId: 0, // 0 when the request id is the event id
  role: 1,
  clientIp: 2, // 0 for none
  username: 3,
  tokenId: 4,
  tokenName: 5,
  group: 6,
  modelName: 7,
  upstreamModel: 8, // 0 when equal to modelName
  channelId: 9,
  channelName: 10,
  channelPath: 11, // 0 when [channelId]
  relayMode: 12,
  promptTokens: 13,
  completionTokens: 14,
  cachedTokens: 15,
  modelRatio: 16,
  completionRatio: 17,
  groupRatio: 18,
  modelPrice: 19,
  quota: 20,
  flags: 21,
  useTimeSeconds: 22,
  firstTokenMs: 23,
  createdAt: 24, // seconds after the request id's own time when the id is a UUID v7 (admissionBase), else Unix seconds
  usageSource: 25, // 0 unknown, else USAGE_SOURCES index + 1
  endReason: 26, // 0 unknown, else CHARGE_END_REASONS index + 1
  content: 27, // present only when the event has its own log wording
} as const;

/** The v2 text of a charge (specs and the storage benchmark compare the shapes; the relay writes v3). */
export function encodeV2(data: QuotaConsumedData, role: number, clientIp: string | null, id: string): string {
  const requestIdIsId = id === data.requestId;
  const row: unknown[] = [
    requestIdIsId ? 0 : data.requestId,
    role,
    clientIp ?? 0,
    data.username,
    data.tokenId,
    data.tokenName,
    data.group,
    data.modelName,
    data.upstreamModel === data.modelName ? 0 : data.upstreamModel,
    data.channelId,
    data.channelName,
    samePath(data) ? 0 : data.channelPath,
    data.relayMode,
    data.promptTokens,
    data.completionTokens,
    data.cachedTokens,
    data.modelRatio,
    data.completionRatio,
    data.groupRatio,
    data.modelPrice,
    data.quota,
    flagsOf(data),
    data.useTimeSeconds,
    data.firstTokenMs,
    data.createdAt - admissionBase(id, requestIdIsId),
    data.usageSource === undefined ? 0 : USAGE_SOURCES.indexOf(data.usageSource) + 1,
    data.endReason === undefined ? 0 : CHARGE_END_REASONS.indexOf(data.endReason) + 1,
  ];
  if (data.content !== undefined) row.push(data.content);
  return JSON.stringify(row);
}

export function decodeV2(text: string, context: PositionalContext): PositionalDecoded {
  const f = new Fields(parseRow(text, V2.endReason + 1, 'v2'));
  const requestIdIsId = f.at(V2.requestId) === 0;
  const modelName = f.str(V2.modelName);
  const channelId = f.num(V2.channelId);
  const data = {
    requestId: f.strOr(V2.requestId, context.id),
    userId: context.userId,
    username: f.str(V2.username),
    tokenId: f.num(V2.tokenId),
    tokenName: f.str(V2.tokenName),
    group: f.str(V2.group),
    modelName,
    upstreamModel: f.strOr(V2.upstreamModel, modelName),
    channelId,
    channelName: f.str(V2.channelName),
    channelPath: f.path(V2.channelPath, channelId),
    relayMode: f.str(V2.relayMode),
    promptTokens: f.num(V2.promptTokens),
    completionTokens: f.num(V2.completionTokens),
    cachedTokens: f.num(V2.cachedTokens),
    modelRatio: f.num(V2.modelRatio),
    completionRatio: f.num(V2.completionRatio),
    groupRatio: f.num(V2.groupRatio),
    modelPrice: f.num(V2.modelPrice),
    quota: f.num(V2.quota),
    tokenUnlimited: false,
    isStream: false,
    useTimeSeconds: f.num(V2.useTimeSeconds),
    firstTokenMs: f.num(V2.firstTokenMs),
    createdAt: f.num(V2.createdAt) + admissionBase(context.id, requestIdIsId),
  } as QuotaConsumedData;
  if (f.at(V2.content) !== undefined) data.content = f.str(V2.content);
  const flags = f.num(V2.flags);
  applyFlags(data, flags);
  const usageSource = USAGE_SOURCES[f.num(V2.usageSource) - 1];
  if (usageSource !== undefined) data.usageSource = usageSource;
  const endReason = CHARGE_END_REASONS[f.num(V2.endReason) - 1];
  if (endReason !== undefined) data.endReason = endReason;
  return { data, role: f.num(V2.role), clientIp: f.at(V2.clientIp) === 0 ? null : f.str(V2.clientIp) };
}

/** The amount of a v2 text, unchecked (the account decider's fold checks it). */
export const quotaV2 = (text: string): unknown => positionalField(text, V2.quota);
