import { generateTokenKey, isWellFormedTokenKey, maskTokenKey, readRelayKey, TOKEN_KEY_LENGTH } from './token-key';

describe('token keys', () => {
  it('generates 48 characters of [0-9a-zA-Z], different every time, using the whole alphabet', () => {
    const keys = Array.from({ length: 200 }, generateTokenKey);
    for (const key of keys) expect(key).toMatch(/^[0-9a-zA-Z]{48}$/);
    expect(new Set(keys).size).toBe(200);
    expect(new Set(keys.join('')).size).toBe(62);
    expect(TOKEN_KEY_LENGTH).toBe(48);
  });

  it('masks a key as the relay messages show it', () => {
    expect(maskTokenKey('abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKL')).toBe('sk-abc***JKL');
  });

  it('knows which strings could be keys', () => {
    expect(isWellFormedTokenKey('a'.repeat(48))).toBe(true);
    for (const key of ['', 'a'.repeat(49), 'abc-def', "' OR 1", 'ключ']) expect(isWellFormedTokenKey(key)).toBe(false);
  });

  it('reads the key as TokenAuth does: Bearer, sk-, the channel suffix, the mj-api-secret fallback', () => {
    expect(readRelayKey({ authorization: 'Bearer sk-abc' })).toEqual({ key: 'abc' });
    expect(readRelayKey({ authorization: 'sk-abc' })).toEqual({ key: 'abc' });
    expect(readRelayKey({ authorization: 'abc' })).toEqual({ key: 'abc' });
    expect(readRelayKey({ authorization: 'Bearer sk-abc-12' })).toEqual({ key: 'abc', channelPart: '12' });
    expect(readRelayKey({ authorization: 'Bearer sk-abc-' })).toEqual({ key: 'abc', channelPart: '' });
    expect(readRelayKey({ authorization: null })).toEqual({ key: '' });
    expect(readRelayKey({ authorization: 'Bearer sk-' })).toEqual({ key: '' });
    expect(readRelayKey({ authorization: 'midjourney-proxy', mjApiSecret: 'Bearer sk-mj' })).toEqual({ key: 'mj' });
    expect(readRelayKey({ authorization: '', mjApiSecret: 'sk-mj-3' })).toEqual({ key: 'mj', channelPart: '3' });
  });
});
