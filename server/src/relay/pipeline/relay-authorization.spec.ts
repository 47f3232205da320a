import { readRelayKey } from '../../modules/tokens';
import { relayAuthorization } from './relay-authorization';

describe('relayAuthorization (the mj-api-secret fallback)', () => {
  it('uses mj-api-secret when Authorization is missing, empty or midjourney-proxy', () => {
    expect(relayAuthorization({ 'mj-api-secret': 'sk-abc' })).toBe('sk-abc');
    expect(relayAuthorization({ authorization: '', 'mj-api-secret': 'sk-abc' })).toBe('sk-abc');
    expect(relayAuthorization({ authorization: '  ', 'mj-api-secret': 'Bearer sk-abc' })).toBe('Bearer sk-abc');
    expect(relayAuthorization({ authorization: 'midjourney-proxy', 'mj-api-secret': 'sk-abc' })).toBe('sk-abc');
    expect(relayAuthorization({ authorization: 'Bearer midjourney-proxy', 'mj-api-secret': ['sk-abc', 'sk-other'] })).toBe('sk-abc');
  });

  it('keeps Authorization when it holds a key, or when there is no mj-api-secret header', () => {
    expect(relayAuthorization({ authorization: 'Bearer sk-abc', 'mj-api-secret': 'sk-other' })).toBe('Bearer sk-abc');
    expect(relayAuthorization({ authorization: 'Bearer sk-abc' })).toBe('Bearer sk-abc');
    expect(relayAuthorization({ authorization: '' })).toBe('');
    expect(relayAuthorization({})).toBeUndefined();
  });

  it('gives the authenticator the key readRelayKey reads from both headers', () => {
    const cases: Array<[string | undefined, string | undefined]> = [
      [undefined, undefined],
      ['', 'sk-abc'],
      ['  ', ' Bearer sk-abc-7 '],
      ['Bearer midjourney-proxy', 'abc'],
      ['midjourney-proxy', undefined],
      ['Bearer sk-abc', 'sk-other'],
      ['sk-abc-3', ''],
      [undefined, 'sk-xyz'],
    ];
    for (const [authorization, mjApiSecret] of cases) {
      const headers: Record<string, string | undefined> = { authorization, 'mj-api-secret': mjApiSecret };
      expect(readRelayKey({ authorization: relayAuthorization(headers) })).toEqual(readRelayKey({ authorization, mjApiSecret }));
    }
  });
});
