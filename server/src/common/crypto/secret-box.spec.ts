import { dataKey, SecretBox, SecretKeyError, SecretUnreadableError } from './secret-box';

describe('SecretBox', () => {
  const current = dataKey('current-key-current-key-current-key-0001', 'SECRETS_KEY');
  const old = dataKey('old-key-old-key-old-key-old-key-old-0001', 'old');
  const box = new SecretBox(current, [old]);

  it('seals to enc:v1:<key id>:<iv>:<tag>:<ciphertext> without the plain text, and opens it back', () => {
    const plain = '{"type":"service_account","private_key":"-----BEGIN PRIVATE KEY-----\\nMIIE…"}';
    const sealed = box.seal(plain, 'channels.key');
    expect(sealed).toMatch(new RegExp(`^enc:v1:${current.id}:[\\w-]{16}:[\\w-]{22}:[\\w-]+$`));
    expect(sealed).not.toContain('service_account');
    expect(box.open(sealed, 'channels.key')).toBe(plain);
  });

  it('uses a fresh IV each time, so one key sealed twice gives two values', () => {
    expect(box.seal('sk-same', 'channels.key')).not.toBe(box.seal('sk-same', 'channels.key'));
  });

  it('answers a legacy plain value as it is and marks it for sealing; empty stays empty', () => {
    expect(box.open('sk-legacy-plain', 'channels.key')).toBe('sk-legacy-plain');
    expect(box.needsSealing('sk-legacy-plain')).toBe(true);
    expect(box.seal('', 'options.SMTPToken')).toBe('');
    expect(box.needsSealing('')).toBe(false);
  });

  it('opens values of an old key and marks them for re-sealing; values of the current key need nothing', () => {
    const before = new SecretBox(old).seal('sk-rotated', 'channels.key');
    expect(box.open(before, 'channels.key')).toBe('sk-rotated');
    expect(box.needsSealing(before)).toBe(true);
    expect(box.needsSealing(box.seal('sk-rotated', 'channels.key'))).toBe(false);
  });

  it('refuses a value of an unknown key, a value of another purpose and a tampered value, naming only the key id', () => {
    const stranger = new SecretBox(dataKey('stranger-key-stranger-key-stranger-0001', 'x')).seal('sk-unknown', 'channels.key');
    expect(() => box.open(stranger, 'channels.key')).toThrow(SecretUnreadableError);
    expect(() => box.open(stranger, 'channels.key')).toThrow(/neither SECRETS_KEY nor in SECRETS_OLD_KEYS/);
    const sealed = box.seal('sk-moved', 'options.EpayKey');
    expect(() => box.open(sealed, 'options.SMTPToken')).toThrow(/does not open/);
    const parts = sealed.split(':');
    parts[5] = `${parts[5].slice(0, -2)}AA`;
    expect(() => box.open(parts.join(':'), 'options.EpayKey')).toThrow(SecretUnreadableError);
    const shortTag = sealed.split(':');
    shortTag[4] = shortTag[4].slice(0, 6);
    expect(() => box.open(shortTag.join(':'), 'options.EpayKey')).toThrow(SecretUnreadableError);
    for (const attempt of [() => box.open(stranger, 'channels.key'), () => box.open(parts.join(':'), 'options.EpayKey')]) {
      expect(attempt).toThrow(expect.objectContaining({ message: expect.not.stringMatching(/sk-/) }));
    }
  });

  it('derives a stable key id that does not reveal the key, and refuses keys shorter than 32 characters', () => {
    expect(dataKey('current-key-current-key-current-key-0001', 'again')).toEqual(current);
    expect(current.id).toMatch(/^[0-9a-f]{12}$/);
    expect(current.id).not.toBe(old.id);
    expect(() => dataKey('short', 'SECRETS_KEY')).toThrow(SecretKeyError);
    expect(() => dataKey('short', 'SECRETS_KEY')).toThrow('SECRETS_KEY must be at least 32 characters');
  });
});
