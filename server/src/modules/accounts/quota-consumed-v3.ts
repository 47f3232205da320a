import { CHARGE_END_REASONS, type QuotaConsumedData, USAGE_SOURCES } from './quota-consumed.event';
import {
  admissionBase,
  applyFlags,
  Fields,
  flagsOf,
  parseRow,
  type PositionalContext,
  type PositionalDecoded,
  PositionalError,
  positionalField,
  samePath,
} from './quota-consumed-positional';

/**
 * The v3 shape of a stored QuotaConsumed (written since the v3 change of issue 20; docs/ledger.md): the facts every
 * charge has first, then those that usually hold their default value, the likeliest default last; the writer leaves
 * out every trailing element equal to its default, the reader puts the default back. Smaller codes than v2's too:
 * the relay mode is an index into a frozen list (0: chat), the usage source and the end reason are 0-based
 * (0: upstream, completed; -1: not recorded). A bench charge's text is 109-113 characters where v2's was 139.
 */

/** The positions of the v3 array. Frozen: a new field is appended at the end with its default in V3_DEFAULTS. */
const V3 = {
  role: 0,
  clientIp: 1, // 0 for none
  username: 2,
  tokenId: 3,
  tokenName: 4,
  group: 5,
  modelName: 6,
  channelId: 7,
  channelName: 8,
  promptTokens: 9,
  completionTokens: 10,
  modelRatio: 11,
  completionRatio: 12,
  groupRatio: 13,
  quota: 14,
  // From here on, an element the array does not reach has its default (V3_DEFAULTS).
  flags: 15, // 0
  createdAt: 16, // 0; seconds after the request id's own time when the id is a UUID v7 (admissionBase), else Unix seconds
  useTimeSeconds: 17, // 0
  firstTokenMs: 18, // 0
  cachedTokens: 19, // 0
  modelPrice: 20, // -1: priced by ratio
  usageSource: 21, // 0: USAGE_SOURCES index (0 upstream); -1 not recorded
  endReason: 22, // 0: CHARGE_END_REASONS index (0 completed); -1 not recorded
  relayMode: 23, // 0: a number is an index into V3_RELAY_MODES (0 chat); a string is any other mode, as is
  upstreamModel: 24, // 0: equal to modelName
  channelPath: 25, // 0: [channelId]
  requestId: 26, // 0: the event id
  content: 27, // 0: none (the log wording is derived)
} as const;
const V3_REQUIRED = V3.quota + 1;
const V3_DEFAULTS: readonly unknown[] = [
  ...new Array<unknown>(V3_REQUIRED).fill(undefined), // always written
  0, // flags
  0, // createdAt
  0, // useTimeSeconds
  0, // firstTokenMs
  0, // cachedTokens
  -1, // modelPrice
  0, // usageSource
  0, // endReason
  0, // relayMode
  0, // upstreamModel
  0, // channelPath
  0, // requestId
  0, // content
];

/**
 * The relay modes v3 stores as an index. Frozen (never reordered, never appended): a mode not in it, such as a task's
 * (`suno`, `midjourney`) or one added to the relay later, is stored as its name.
 */
const V3_RELAY_MODES: readonly string[] = [
  'chat',
  'completions',
  'embeddings',
  'moderations',
  'images-generations',
  'audio-speech',
  'audio-transcriptions',
  'audio-translations',
  'rerank',
];

const codeOf = (list: readonly string[], value: string | undefined) => (value === undefined ? -1 : list.indexOf(value));

export function encodeV3(data: QuotaConsumedData, role: number, clientIp: string | null, id: string): string {
  const requestIdIsId = id === data.requestId;
  const mode = V3_RELAY_MODES.indexOf(data.relayMode);
  const row: unknown[] = [
    role,
    clientIp ?? 0,
    data.username,
    data.tokenId,
    data.tokenName,
    data.group,
    data.modelName,
    data.channelId,
    data.channelName,
    data.promptTokens,
    data.completionTokens,
    data.modelRatio,
    data.completionRatio,
    data.groupRatio,
    data.quota,
    flagsOf(data),
    data.createdAt - admissionBase(id, requestIdIsId),
    data.useTimeSeconds,
    data.firstTokenMs,
    data.cachedTokens,
    data.modelPrice,
    codeOf(USAGE_SOURCES, data.usageSource),
    codeOf(CHARGE_END_REASONS, data.endReason),
    mode >= 0 ? mode : data.relayMode,
    data.upstreamModel === data.modelName ? 0 : data.upstreamModel,
    samePath(data) ? 0 : data.channelPath,
    requestIdIsId ? 0 : data.requestId,
    data.content ?? 0,
  ];
  // Left out: every trailing element equal to its default. -0 equals 0 here; JSON writes it as 0 anyway.
  let length = row.length;
  while (length > V3_REQUIRED && row[length - 1] === V3_DEFAULTS[length - 1]) length--;
  row.length = length;
  return JSON.stringify(row);
}

export function decodeV3(text: string, context: PositionalContext): PositionalDecoded {
  const f = new Fields(parseRow(text, V3_REQUIRED, 'v3'), V3_DEFAULTS);
  const requestIdIsId = f.at(V3.requestId) === 0;
  const modelName = f.str(V3.modelName);
  const channelId = f.num(V3.channelId);
  const mode = f.at(V3.relayMode);
  let relayMode: string;
  if (typeof mode === 'number') {
    const known = V3_RELAY_MODES[mode];
    if (known === undefined) throw new PositionalError(`relay mode ${mode} is not a known index`);
    relayMode = known;
  } else {
    relayMode = f.str(V3.relayMode);
  }
  const data = {
    requestId: f.strOr(V3.requestId, context.id),
    userId: context.userId,
    username: f.str(V3.username),
    tokenId: f.num(V3.tokenId),
    tokenName: f.str(V3.tokenName),
    group: f.str(V3.group),
    modelName,
    upstreamModel: f.strOr(V3.upstreamModel, modelName),
    channelId,
    channelName: f.str(V3.channelName),
    channelPath: f.path(V3.channelPath, channelId),
    relayMode,
    promptTokens: f.num(V3.promptTokens),
    completionTokens: f.num(V3.completionTokens),
    cachedTokens: f.num(V3.cachedTokens),
    modelRatio: f.num(V3.modelRatio),
    completionRatio: f.num(V3.completionRatio),
    groupRatio: f.num(V3.groupRatio),
    modelPrice: f.num(V3.modelPrice),
    quota: f.num(V3.quota),
    tokenUnlimited: false,
    isStream: false,
    useTimeSeconds: f.num(V3.useTimeSeconds),
    firstTokenMs: f.num(V3.firstTokenMs),
    createdAt: f.num(V3.createdAt) + admissionBase(context.id, requestIdIsId),
  } as QuotaConsumedData;
  if (f.at(V3.content) !== 0) data.content = f.str(V3.content);
  applyFlags(data, f.num(V3.flags));
  const usageSource = USAGE_SOURCES[f.num(V3.usageSource)];
  if (usageSource !== undefined) data.usageSource = usageSource;
  const endReason = CHARGE_END_REASONS[f.num(V3.endReason)];
  if (endReason !== undefined) data.endReason = endReason;
  return { data, role: f.num(V3.role), clientIp: f.at(V3.clientIp) === 0 ? null : f.str(V3.clientIp) };
}

/** The amount of a v3 text, unchecked (the account decider's fold checks it). */
export const quotaV3 = (text: string): unknown => positionalField(text, V3.quota);
