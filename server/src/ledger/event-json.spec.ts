import { eventJson } from './event-json';
import type { NewEvent } from './event-store.port';

describe('eventJson', () => {
  const event = (): NewEvent => ({
    id: '00000000-0000-5000-8000-000000000001',
    type: 'QuotaConsumed',
    data: { quota: 0, note: 'temperature 0 stays 0' },
    metadata: {
      correlationId: 'r1',
      causationId: null,
      actor: { type: 'system' },
      clientIp: null,
      reasonCode: 'relay_request',
      schemaVersion: 1,
    },
  });

  it('is the JSON of id, type, data and metadata, and the same string the second time', () => {
    const subject = event();
    const json = eventJson(subject);
    expect(JSON.parse(json)).toEqual(event());
    expect(eventJson(subject)).toBe(json);
  });

  it('leaves the event as it was for every serialiser and comparison', () => {
    const subject = event();
    eventJson(subject);
    expect(subject).toEqual(event());
    expect(Object.keys(subject)).toEqual(['id', 'type', 'data', 'metadata']);
    expect(JSON.stringify(subject)).toBe(JSON.stringify(event()));
  });
});
