import { deterministicEventId, isUuid, TOLLGATE_EVENT_NAMESPACE, uuidV5 } from './event-ids';

const DNS_NAMESPACE = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';

describe('event ids', () => {
  it('given the RFC 4122 DNS namespace, when hashing www.example.com, then it matches the published v5 vector', () => {
    expect(uuidV5(DNS_NAMESPACE, 'www.example.com')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('given the same cause, when deriving twice, then the id is the same; a different cause gives another id', () => {
    const first = deterministicEventId('relay-request', 'req-123');
    expect(deterministicEventId('relay-request', 'req-123')).toBe(first);
    expect(deterministicEventId('relay-request', 'req-124')).not.toBe(first);
    expect(deterministicEventId('topup-paid', 'req-123')).not.toBe(first);
  });

  it('given a named namespace, when deriving, then it is v5 under the namespace derived from the Tollgate root', () => {
    const id = deterministicEventId('relay-request', 'req-123');
    expect(isUuid(id)).toBe(true);
    expect(id[14]).toBe('5');
    expect('89ab').toContain(id[19]);
    expect(id).toBe(uuidV5(uuidV5(TOLLGATE_EVENT_NAMESPACE, 'relay-request'), 'req-123'));
  });

  it('given a UUID namespace, when deriving, then it is used as is (case-insensitively)', () => {
    expect(deterministicEventId(DNS_NAMESPACE.toUpperCase(), 'www.example.com')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('rejects an empty namespace', () => {
    expect(() => deterministicEventId('', 'x')).toThrow(TypeError);
  });
});
