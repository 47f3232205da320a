import { isUuid } from './event-ids';
import { EventIdConflictError, type ExpectedRevision, InvalidEventError, type NewEvent } from './event-store.port';

/**
 * Checks every adapter applies before talking to its store, so a malformed batch fails the same way everywhere
 * (and never half-way through a write).
 */
export function validateAppend(streamId: string, events: NewEvent[], expected: ExpectedRevision): void {
  if (!streamId || streamId.startsWith('$')) {
    throw new InvalidEventError(`Invalid stream id "${streamId}": empty or reserved ($-prefixed)`);
  }
  if (typeof expected === 'number' && (!Number.isSafeInteger(expected) || expected < 0)) {
    throw new InvalidEventError(`Invalid expected revision ${expected}: use 'no_stream' for a stream that must not exist`);
  }
  const seen = new Set<string>();
  const repeated: string[] = [];
  for (const event of events) {
    if (!isUuid(event.id)) throw new InvalidEventError(`Event id "${event.id}" is not a UUID`);
    if (!event.type || event.type.startsWith('$')) throw new InvalidEventError(`Invalid event type "${event.type}"`);
    const id = event.id.toLowerCase();
    if (seen.has(id)) repeated.push(id);
    seen.add(id);
  }
  if (repeated.length) throw new EventIdConflictError(streamId, repeated, 'duplicate_in_batch');
}
