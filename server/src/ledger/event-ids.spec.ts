import { createHash } from 'node:crypto';
import { deterministicEventId, isUuid, TOLLGATE_EVENT_NAMESPACE, uuidV5, uuidV7 } from './event-ids';

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

  it('gives the same id on the one-shot path (short names) and the streaming path (long names), multi-byte text included', () => {
    const reference = (namespace: string, name: string): string => {
      const bytes = createHash('sha1')
        .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
        .update(name, 'utf8')
        .digest();
      bytes[6] = (bytes[6] & 0x0f) | 0x50;
      bytes[8] = (bytes[8] & 0x3f) | 0x80;
      const hex = bytes.toString('hex', 0, 16);
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    };
    for (const name of [
      '',
      'req-1',
      'é'.repeat(80),
      '请求'.repeat(40),
      'x'.repeat(80),
      'x'.repeat(81),
      'é'.repeat(5000),
      '😀'.repeat(60),
    ]) {
      expect(uuidV5(DNS_NAMESPACE, name)).toBe(reference(DNS_NAMESPACE, name));
      expect(uuidV5(TOLLGATE_EVENT_NAMESPACE, name)).toBe(reference(TOLLGATE_EVENT_NAMESPACE, name));
    }
    // A long name between two short ones leaves nothing of itself in the reused buffer.
    expect(uuidV5(DNS_NAMESPACE, 'www.example.com')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('rejects an empty namespace', () => {
    expect(() => deterministicEventId('', 'x')).toThrow(TypeError);
  });

  it('uuidV7: the millisecond time in the first 48 bits, version 7, RFC variant, random otherwise; ordered by time', () => {
    const at = Date.UTC(2026, 10, 25, 20, 0, 0, 123);
    const id = uuidV7(at);
    expect(isUuid(id)).toBe(true);
    expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at);
    expect(id[14]).toBe('7');
    expect('89ab').toContain(id[19]);
    expect(uuidV7(at)).not.toBe(id);
    const ids = [at + 1, at + 1000, at + 86_400_000].map((time) => uuidV7(time));
    expect([...ids].sort()).toEqual(ids);
    expect(id < ids[0]).toBe(true);
  });

  it('uuidV7: over many ids (the random pool refilled several times) each is a distinct v7 of its own time, and none changes later', () => {
    const at = Date.UTC(2026, 10, 26, 0, 30, 0, 999);
    const ids = Array.from({ length: 1_000 }, (_, index) => uuidV7(at + index));
    const copies = [...ids];
    expect(new Set(ids).size).toBe(ids.length);
    ids.forEach((id, index) => {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(at + index);
    });
    expect(ids).toEqual(copies); // each id is a string of its own, not a view of the buffer it was written in
    // The random part is random: over 1,000 ids each of its 18 hex digits after the version takes many values.
    for (const position of [15, 16, 17, 20, 21, 22, 24, 30, 35]) expect(new Set(ids.map((id) => id[position])).size).toBeGreaterThan(8);
    expect(uuidV7(2 ** 48 + 5).startsWith('00000000-0005-7')).toBe(true); // 48 bits of milliseconds, as RFC 9562 counts them
  });
});
