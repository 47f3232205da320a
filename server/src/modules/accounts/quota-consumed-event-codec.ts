import { deterministicEventId } from '../../ledger/event-ids';
import type { EventMetadata, NewEvent } from '../../ledger/event-store.port';
import { accountStream, streamKey } from '../../ledger/streams';
import {
  CHARGE_END_REASONS,
  type ChargeEndReason,
  QUOTA_CONSUMED,
  type QuotaConsumedData,
  USAGE_SOURCES,
  type UsageSource,
} from './quota-consumed.event';

/**
 * The one encoder and decoder of the relay's QuotaConsumed, as stored in the ledger (docs/ledger.md, "QuotaConsumed
 * as stored"). Every writer (the relay's settlement, task charges, benchmark ledgers) builds its event with
 * quotaConsumedEvent; every reader (the projections, the statement, the quota reminder, the account decider) reads
 * it with quotaConsumedData / quotaConsumedMetadata, which read both stored shapes:
 *
 * - **v1** (events written before issue 20): `data` is the QuotaConsumedData object itself, `metadata` the full
 *   envelope (correlationId = requestId, actor, clientIp, reasonCode `relay_request`, schemaVersion 1).
 * - **v2**: `data` is `{"v2": "<JSON array text>"}` and `metadata` is `{}`. The array holds the facts by position
 *   (V2 below), without what the event already says elsewhere: the user id (the stream, `account-{userId}`), the
 *   request id when it is the event id (a canonical UUID: quotaConsumedEventId), the correlation id (= request id),
 *   the actor (the user, with the role recorded here), the reason code (always `relay_request`); the upstream model
 *   and the channel path are written only when they differ from the model asked for and from [channelId]; the
 *   booleans are one bit field; the usage source and the end reason are small numbers. The array is kept as JSON
 *   TEXT inside one jsonb string: Postgres stores a jsonb number as a numeric with a 4-byte entry each, so the same
 *   array as jsonb took 340 bytes where its text takes 150.
 */

/** The positions of the v2 array. Append new fields at the end (older v2 arrays then simply lack them). */
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
  createdAt: 24, // seconds after the request id's own time when the id is a UUID v7 (see admissionBase), else Unix seconds
  usageSource: 25, // 0 unknown, else USAGE_SOURCES index + 1
  endReason: 26, // 0 unknown, else CHARGE_END_REASONS index + 1
  content: 27, // present only when the event has its own log wording
} as const;
const V2_LENGTH = V2.endReason + 1;

const FLAG = { tokenUnlimited: 1, isStream: 2, logConsumeOff: 4, dataExportOff: 8, billingCapped: 16 } as const;

/** The reason code of every relay charge (v1 stored it in the metadata; v2 derives it). */
export const RELAY_REQUEST_REASON = 'relay_request';
export const RELAY_REQUEST_NAMESPACE = 'relay-request';

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The event id of a request's one charge, so a retried settlement appends nothing new. The relay's request ids are
 * random UUIDs: the id is the request id itself (the v2 payload then need not repeat it). Any other request id
 * (specs, imported ledgers) gets the UUID v5 of it, as every charge did before issue 20; the payload then keeps it.
 */
export function quotaConsumedEventId(requestId: string): string {
  return CANONICAL_UUID.test(requestId) ? requestId : deterministicEventId(RELAY_REQUEST_NAMESPACE, requestId);
}

/**
 * The Unix second a v2 charge's `createdAt` is counted from: the time inside its event id when that id is the request
 * id and a UUID v7 (the relay's: made when the request arrived, so the admission time is that second or the next),
 * else 0 (createdAt stored whole). Saves the ten digits of a timestamp the id already carries, exactly.
 */
function admissionBase(eventId: string, requestIdIsId: boolean): number {
  if (!requestIdIsId || eventId[14] !== '7') return 0;
  return Math.floor(parseInt(eventId.slice(0, 8) + eventId.slice(9, 13), 16) / 1000);
}

/** What the envelope of a relay charge says beyond its data: who asked (their role then) and from where. */
export interface QuotaConsumedEnvelope {
  userRole: number;
  clientIp: string | null;
}

/** A charge as it is appended: the account stream and the event (v2). */
export interface QuotaConsumedAppend {
  streamId: string;
  event: NewEvent;
}

/**
 * The NewEvent of a charge, in the current stored shape (v2), with its id (quotaConsumedEventId) and its stream.
 * The only builder of QuotaConsumed events: the relay's settlement and anything that writes charges (benchmark
 * ledgers) go through it.
 */
export function quotaConsumedEvent(data: QuotaConsumedData, envelope: QuotaConsumedEnvelope): QuotaConsumedAppend {
  const id = quotaConsumedEventId(data.requestId);
  const path = data.channelPath;
  const samePath = path.length === 1 && path[0] === data.channelId;
  const flags =
    (data.tokenUnlimited ? FLAG.tokenUnlimited : 0) |
    (data.isStream ? FLAG.isStream : 0) |
    (data.logConsume === false ? FLAG.logConsumeOff : 0) |
    (data.dataExport === false ? FLAG.dataExportOff : 0) |
    (data.billingCapped === true ? FLAG.billingCapped : 0);
  const row: unknown[] = [
    id === data.requestId ? 0 : data.requestId,
    envelope.userRole,
    envelope.clientIp ?? 0,
    data.username,
    data.tokenId,
    data.tokenName,
    data.group,
    data.modelName,
    data.upstreamModel === data.modelName ? 0 : data.upstreamModel,
    data.channelId,
    data.channelName,
    samePath ? 0 : path,
    data.relayMode,
    data.promptTokens,
    data.completionTokens,
    data.cachedTokens,
    data.modelRatio,
    data.completionRatio,
    data.groupRatio,
    data.modelPrice,
    data.quota,
    flags,
    data.useTimeSeconds,
    data.firstTokenMs,
    data.createdAt - admissionBase(id, id === data.requestId),
    data.usageSource === undefined ? 0 : USAGE_SOURCES.indexOf(data.usageSource) + 1,
    data.endReason === undefined ? 0 : CHARGE_END_REASONS.indexOf(data.endReason) + 1,
  ];
  if (data.content !== undefined) row.push(data.content);
  // The metadata is derived on reading (quotaConsumedMetadata); `{}` is all that is stored of it.
  const metadata = {} as EventMetadata;
  return { streamId: accountStream(data.userId), event: { id, type: QUOTA_CONSUMED, data: { v2: JSON.stringify(row) }, metadata } };
}

/** What a reader needs of a stored (or about-to-be-stored) QuotaConsumed. */
export interface StoredQuotaConsumed {
  id: string;
  streamId: string;
  data: unknown;
  metadata?: unknown;
}

/** A QuotaConsumed whose stored payload this code cannot read: the projection stops on it rather than guess. */
export class MalformedQuotaConsumedError extends Error {
  readonly code = 'malformed_quota_consumed';
  constructor(id: string, why: string) {
    super(`QuotaConsumed ${id} cannot be decoded: ${why}`);
  }
}

interface Decoded {
  data: QuotaConsumedData;
  metadata: EventMetadata;
}

const DECODED = Symbol('tollgate.quotaConsumed');

/**
 * The charge's facts, whichever shape it was stored in. Decoded once per event object (the projections of a batch
 * share the objects), kept on it under a symbol no serialiser sees. A v1 event's data is returned as stored: readers
 * check its fields as they always did.
 */
export function quotaConsumedData(event: StoredQuotaConsumed): QuotaConsumedData {
  return decoded(event).data;
}

/** quotaConsumedData as a plain record, for the folds that check each field they read. */
export function quotaConsumedRecord(event: StoredQuotaConsumed): Record<string, unknown> {
  return decoded(event).data as unknown as Record<string, unknown>;
}

/** The charge's envelope: v1's stored metadata, or v2's derived from the stream, the request id and the role. */
export function quotaConsumedMetadata(event: StoredQuotaConsumed): EventMetadata {
  return decoded(event).metadata;
}

function decoded(event: StoredQuotaConsumed): Decoded {
  const cached = (event as { [DECODED]?: Decoded })[DECODED];
  if (cached !== undefined) return cached;
  const result = decode(event);
  Object.defineProperty(event, DECODED, { value: result, enumerable: false, writable: true, configurable: true });
  return result;
}

function decode(event: StoredQuotaConsumed): Decoded {
  const data = event.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new MalformedQuotaConsumedError(event.id, 'data is not an object');
  const v2 = (data as { v2?: unknown }).v2;
  if (v2 === undefined) {
    // v1: the object is the data; the metadata was stored whole.
    return { data: data as QuotaConsumedData, metadata: (event.metadata ?? {}) as EventMetadata };
  }
  if (typeof v2 !== 'string') throw new MalformedQuotaConsumedError(event.id, 'v2 is not a string');
  let row: unknown;
  try {
    row = JSON.parse(v2);
  } catch {
    throw new MalformedQuotaConsumedError(event.id, 'v2 is not JSON');
  }
  if (!Array.isArray(row) || row.length < V2_LENGTH) throw new MalformedQuotaConsumedError(event.id, 'v2 is not an array of its fields');
  // null is how JSON writes a number that is not finite (NaN) and an absent string: read back as NaN and '', which the
  // readers' checks treat as they treated v1's null or missing key (a fallback, or a refused quota). Any other type
  // is a corrupt payload.
  const num = (index: number): number => {
    const value = row[index];
    if (value === null) return NaN;
    if (typeof value !== 'number') throw new MalformedQuotaConsumedError(event.id, `field ${index} is not a number`);
    return value;
  };
  const str = (index: number): string => {
    const value = row[index];
    if (value === null) return '';
    if (typeof value !== 'string') throw new MalformedQuotaConsumedError(event.id, `field ${index} is not a string`);
    return value;
  };
  const userId = streamKey(event.streamId);
  if (!event.streamId.startsWith('account-') || !Number.isSafeInteger(userId)) {
    throw new MalformedQuotaConsumedError(event.id, `stream ${event.streamId} is not an account stream`);
  }
  const requestId = row[V2.requestId] === 0 ? event.id : str(V2.requestId);
  const modelName = str(V2.modelName);
  const channelId = num(V2.channelId);
  const storedPath = row[V2.channelPath];
  if (storedPath !== 0 && !(Array.isArray(storedPath) && storedPath.every((id) => typeof id === 'number'))) {
    throw new MalformedQuotaConsumedError(event.id, 'channel path is neither 0 nor a list of ids');
  }
  const flags = num(V2.flags);
  const result: QuotaConsumedData = {
    requestId,
    userId,
    username: str(V2.username),
    tokenId: num(V2.tokenId),
    tokenName: str(V2.tokenName),
    group: str(V2.group),
    modelName,
    upstreamModel: row[V2.upstreamModel] === 0 ? modelName : str(V2.upstreamModel),
    channelId,
    channelName: str(V2.channelName),
    channelPath: storedPath === 0 ? [channelId] : (storedPath as number[]),
    relayMode: str(V2.relayMode),
    promptTokens: num(V2.promptTokens),
    completionTokens: num(V2.completionTokens),
    cachedTokens: num(V2.cachedTokens),
    modelRatio: num(V2.modelRatio),
    completionRatio: num(V2.completionRatio),
    groupRatio: num(V2.groupRatio),
    modelPrice: num(V2.modelPrice),
    quota: num(V2.quota),
    tokenUnlimited: (flags & FLAG.tokenUnlimited) !== 0,
    isStream: (flags & FLAG.isStream) !== 0,
    useTimeSeconds: num(V2.useTimeSeconds),
    firstTokenMs: num(V2.firstTokenMs),
    createdAt: num(V2.createdAt) + admissionBase(event.id, row[V2.requestId] === 0),
  };
  if (row.length > V2.content) result.content = str(V2.content);
  if (flags & FLAG.logConsumeOff) result.logConsume = false;
  if (flags & FLAG.dataExportOff) result.dataExport = false;
  if (flags & FLAG.billingCapped) result.billingCapped = true;
  const usageSource = USAGE_SOURCES[num(V2.usageSource) - 1];
  if (usageSource !== undefined) result.usageSource = usageSource;
  const endReason = CHARGE_END_REASONS[num(V2.endReason) - 1];
  if (endReason !== undefined) result.endReason = endReason;
  const clientIp = row[V2.clientIp] === 0 ? null : str(V2.clientIp);
  const metadata: EventMetadata = {
    correlationId: requestId,
    causationId: null,
    actor: { type: 'user', userId, role: num(V2.role) },
    clientIp,
    reasonCode: RELAY_REQUEST_REASON,
    schemaVersion: 2,
  };
  return { data: result, metadata };
}

/**
 * Only the amount charged, from an event's data alone (folds that see no stream: the account decider's evolve over a
 * stream it read). Not checked: the caller checks it is a safe integer, as it did for v1.
 */
export function quotaConsumedQuota(data: unknown): unknown {
  if (data === null || typeof data !== 'object') return undefined;
  const v2 = (data as { v2?: unknown }).v2;
  if (v2 === undefined) return (data as { quota?: unknown }).quota;
  if (typeof v2 !== 'string') return undefined;
  try {
    const row: unknown = JSON.parse(v2);
    return Array.isArray(row) ? row[V2.quota] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The charge's usage source as stored, checked: one of USAGE_SOURCES, else undefined. Events written before the
 * field existed (and any value this code does not know) read as unknown; nothing is inferred from the counts.
 */
export function quotaConsumedUsageSource(data: Record<string, unknown>): UsageSource | undefined {
  const value = data.usageSource;
  return (USAGE_SOURCES as readonly unknown[]).includes(value) ? (value as UsageSource) : undefined;
}

/** The charge's end reason as stored, checked: one of CHARGE_END_REASONS, else undefined (older events: unknown). */
export function quotaConsumedEndReason(data: Record<string, unknown>): ChargeEndReason | undefined {
  const value = data.endReason;
  return (CHARGE_END_REASONS as readonly unknown[]).includes(value) ? (value as ChargeEndReason) : undefined;
}
