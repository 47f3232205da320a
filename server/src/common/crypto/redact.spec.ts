import { REDACTED, redactKey, secretFragments } from './redact';

describe('redactKey', () => {
  it('hides a key an upstream repeats in its error, and leaves the rest of the message', () => {
    expect(redactKey('Incorrect API key provided: sk-abcdef123456.', 'sk-abcdef123456')).toBe(`Incorrect API key provided: ${REDACTED}.`);
    expect(redactKey('twice sk-abcdef123456 and sk-abcdef123456', ' sk-abcdef123456 ')).toBe(`twice ${REDACTED} and ${REDACTED}`);
    expect(redactKey('no key here', 'sk-abcdef123456')).toBe('no key here');
    expect(redactKey('', 'sk-abcdef123456')).toBe('');
    expect(redactKey('message', '')).toBe('message');
  });

  it('hides each line of a multi-line key and each part of a part|part key', () => {
    expect(redactKey('bad key sk-second-line-999', 'sk-first-line-1111\nsk-second-line-999')).toBe(`bad key ${REDACTED}`);
    expect(redactKey('app appid-12345678 secret secret-abcdefgh', 'appid-12345678|secret-abcdefgh|ab')).toBe(
      `app ${REDACTED} secret ${REDACTED}`,
    );
  });

  it('hides the private key of a service-account JSON, raw and JSON-escaped, but not its public fields', () => {
    const privateKey = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQ\n-----END PRIVATE KEY-----\n';
    const key = JSON.stringify({
      type: 'service_account',
      project_id: 'my-project-1234',
      private_key_id: 'abcdef0123456789',
      private_key: privateKey,
    });
    expect(redactKey(`invalid_grant: ${JSON.stringify(privateKey)}`, key)).not.toContain('MIIEvQIBADANBgkqhkiG9w0BAQ');
    expect(redactKey('key MIIEvQIBADANBgkqhkiG9w0BAQ rejected', key)).toBe(`key ${REDACTED} rejected`);
    expect(redactKey('kid abcdef0123456789 unknown for my-project-1234', key)).toBe(`kid ${REDACTED} unknown for my-project-1234`);
  });

  it('ignores pieces too short to be secrets and lists longer fragments first', () => {
    expect(secretFragments('short|sk-long-enough-1')).toEqual(
      ['sk-long-enough-1', 'short|sk-long-enough-1'].sort((a, b) => b.length - a.length),
    );
    expect(redactKey('short words stay', 'short|sk-long-enough-1')).toBe('short words stay');
  });
});
