import type { Actor, EventMetadata, NewEvent, RecordedEvent } from './event-store.port';

/** Bump per event type when its data shape changes incompatibly; readers upcast older versions. */
export const CURRENT_SCHEMA_VERSION = 1;

export function systemActor(): Actor {
  return { type: 'system' };
}

export function userActor(userId: number, role: number): Actor {
  return { type: 'user', userId, role };
}

export interface MetadataInput {
  correlationId: string;
  reasonCode: string;
  actor: Actor;
  causationId?: string | null;
  clientIp?: string | null;
  schemaVersion?: number;
}

export function eventMetadata(input: MetadataInput): EventMetadata {
  return {
    correlationId: input.correlationId,
    causationId: input.causationId ?? null,
    actor: input.actor,
    clientIp: input.clientIp ?? null,
    reasonCode: input.reasonCode,
    schemaVersion: input.schemaVersion ?? CURRENT_SCHEMA_VERSION,
  };
}

/**
 * Metadata for an event caused by another one (a process step: code redeemed → account credited). The
 * correlation id is carried over so the whole chain answers to the request that started it.
 */
export function causedBy(cause: RecordedEvent, input: { reasonCode: string; actor?: Actor }): EventMetadata {
  return eventMetadata({
    correlationId: cause.metadata.correlationId,
    causationId: cause.id,
    actor: input.actor ?? cause.metadata.actor,
    clientIp: cause.metadata.clientIp,
    reasonCode: input.reasonCode,
  });
}

/**
 * Builds an event to append. `id` is required on purpose: take it from deterministicEventId(…) whenever the
 * event has a cause that can be retried (request id, trade number, redemption id); use randomUUID() only for
 * events nobody can replay, such as an admin edit guarded by an expected revision.
 */
export function newEvent<Type extends string, Data extends Record<string, unknown>>(
  type: Type,
  data: Data,
  options: { id: string; metadata: MetadataInput },
): NewEvent<Type, Data> {
  return { id: options.id, type, data, metadata: eventMetadata(options.metadata) };
}
