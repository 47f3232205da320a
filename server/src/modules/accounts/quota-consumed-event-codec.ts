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
import { PositionalError } from './quota-consumed-positional';
import { decodeV2, encodeV2, quotaV2 } from './quota-consumed-v2';
import { decodeV3, encodeV3, quotaV3 } from './quota-consumed-v3';

/**
 * The one encoder and decoder of the relay's QuotaConsumed, as stored in the ledger (docs/ledger.md, "QuotaConsumed
 * as stored"). Every writer (the relay's settlement, task charges, benchmark ledgers) builds its event with
 * quotaConsumedEvent; every reader (the projections, the statement, the quota reminder, the account decider) reads
 * it with quotaConsumedData / quotaConsumedMetadata, which read every stored shape, forever:
 *
 * - **v1** (events written before issue 20): `data` is the QuotaConsumedData object itself, `metadata` the full
 *   envelope (correlationId = requestId, actor, clientIp, reasonCode `relay_request`, schemaVersion 1).
 * - **v2** and **v3** (now): `data` is `{"v2": "<JSON array text>"}` or `{"v3": …}` and `metadata` is `{}`. The
 *   array holds the facts by position (quota-consumed-v2.ts, quota-consumed-v3.ts), without what the event already says
 *   elsewhere: the user id (the stream, `account-{userId}`), the request id when it is the event id (a canonical
 *   UUID: quotaConsumedEventId), the correlation id (= request id), the actor (the user, with the role recorded
 *   here), the reason code (always `relay_request`); the upstream model and the channel path are written only when
 *   they differ from the model asked for and from [channelId]; the booleans are one bit field; the usage source and
 *   the end reason are small numbers. v3 also stores the relay mode as a small number, and leaves out the trailing
 *   fields that have their default value (no cached tokens, no fixed price, the request id is the event id…). The
 *   array is kept as JSON TEXT inside one jsonb string: Postgres stores a jsonb number as a numeric with a 4-byte
 *   entry each, so the same array as jsonb took 340 bytes where its text takes 150.
 */

/** The stored shapes quotaConsumedEvent can write: the current one, and v2 for specs and benchmarks that compare them. */
export type QuotaConsumedShape = 'v2' | 'v3';
const CURRENT_SHAPE: QuotaConsumedShape = 'v3';

/** The reason code of every relay charge (v1 stored it in the metadata; v2 and v3 derive it). */
export const RELAY_REQUEST_REASON = 'relay_request';
export const RELAY_REQUEST_NAMESPACE = 'relay-request';

/** A uuid as Postgres writes one (lower-case hex, 8-4-4-4-12): the text a `uuid` column gives back unchanged. */
export const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The event id of a request's one charge, so a retried settlement appends nothing new. The relay's request ids are
 * random UUIDs: the id is the request id itself (the v2 payload then need not repeat it). Any other request id
 * (specs, imported ledgers) gets the UUID v5 of it, as every charge did before issue 20; the payload then keeps it.
 */
export function quotaConsumedEventId(requestId: string): string {
  return CANONICAL_UUID.test(requestId) ? requestId : deterministicEventId(RELAY_REQUEST_NAMESPACE, requestId);
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
 * The NewEvent of a charge, in the current stored shape (v3), with its id (quotaConsumedEventId) and its stream.
 * The only builder of QuotaConsumed events: the relay's settlement and anything that writes charges (benchmark
 * ledgers) go through it. `shape` 'v2' writes the previous shape, for specs and benchmarks that compare the two.
 */
export function quotaConsumedEvent(
  data: QuotaConsumedData,
  envelope: QuotaConsumedEnvelope,
  shape: QuotaConsumedShape = CURRENT_SHAPE,
): QuotaConsumedAppend {
  const id = quotaConsumedEventId(data.requestId);
  const text = (shape === 'v2' ? encodeV2 : encodeV3)(data, envelope.userRole, envelope.clientIp, id);
  // The metadata is derived on reading (quotaConsumedMetadata); `{}` is all that is stored of it.
  const metadata = {} as EventMetadata;
  return { streamId: accountStream(data.userId), event: { id, type: QUOTA_CONSUMED, data: { [shape]: text }, metadata } };
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
  const { v2, v3 } = data as { v2?: unknown; v3?: unknown };
  if (v2 === undefined && v3 === undefined) {
    // v1: the object is the data; the metadata was stored whole.
    return { data: data as QuotaConsumedData, metadata: (event.metadata ?? {}) as EventMetadata };
  }
  const shape = v3 === undefined ? 'v2' : 'v3';
  const text = v3 === undefined ? v2 : v3;
  if (typeof text !== 'string') throw new MalformedQuotaConsumedError(event.id, `${shape} is not a string`);
  const userId = streamKey(event.streamId);
  if (!event.streamId.startsWith('account-') || !Number.isSafeInteger(userId)) {
    throw new MalformedQuotaConsumedError(event.id, `stream ${event.streamId} is not an account stream`);
  }
  let decoded;
  try {
    decoded = (shape === 'v2' ? decodeV2 : decodeV3)(text, { id: event.id, userId });
  } catch (error) {
    if (error instanceof PositionalError) throw new MalformedQuotaConsumedError(event.id, error.message);
    throw error;
  }
  const metadata: EventMetadata = {
    correlationId: decoded.data.requestId,
    causationId: null,
    actor: { type: 'user', userId, role: decoded.role },
    clientIp: decoded.clientIp,
    reasonCode: RELAY_REQUEST_REASON,
    schemaVersion: shape === 'v2' ? 2 : 3,
  };
  return { data: decoded.data, metadata };
}

/**
 * Only the amount charged, from an event's data alone (folds that see no stream: the account decider's evolve over a
 * stream it read). Not checked: the caller checks it is a safe integer, as it did for v1.
 */
export function quotaConsumedQuota(data: unknown): unknown {
  if (data === null || typeof data !== 'object') return undefined;
  const { v2, v3 } = data as { v2?: unknown; v3?: unknown };
  if (v3 !== undefined) return typeof v3 === 'string' ? quotaV3(v3) : undefined;
  if (v2 !== undefined) return typeof v2 === 'string' ? quotaV2(v2) : undefined;
  return (data as { quota?: unknown }).quota;
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
