import type { NewEvent } from './event-store.port';

/** Where an event object keeps its JSON: a symbol, non-enumerable, so no serialiser or comparison sees it. */
const SERIALISED = Symbol('tollgate.eventJson');

/**
 * `{"id","type","data","metadata"}` of a new event as JSON, computed once per event object (events are not changed
 * after they are made): a relay charge is serialised for its journal line, and the Postgres adapter's append payload
 * embeds the same string. Kept on the object itself rather than in a WeakMap, whose entries cost the garbage
 * collector more than the string does (one per relay charge).
 */
export function eventJson(event: NewEvent): string {
  const cached = (event as { [SERIALISED]?: string })[SERIALISED];
  if (cached !== undefined) return cached;
  const json = JSON.stringify({ id: event.id, type: event.type, data: event.data, metadata: event.metadata });
  Object.defineProperty(event, SERIALISED, { value: json, enumerable: false, writable: true, configurable: true });
  return json;
}
