import type { NewEvent } from './event-store.port';

/** Serialised events, by event object: a relay charge is serialised for its journal line and again for the ledger. */
const serialised = new WeakMap<NewEvent, string>();

/**
 * `{"id","type","data","metadata"}` of a new event as JSON, computed once per event object (events are not changed
 * after they are made). The Postgres adapter's append payload and the charge journal's lines embed it as it is.
 */
export function eventJson(event: NewEvent): string {
  let json = serialised.get(event);
  if (json === undefined) {
    json = JSON.stringify({ id: event.id, type: event.type, data: event.data, metadata: event.metadata });
    serialised.set(event, json);
  }
  return json;
}
