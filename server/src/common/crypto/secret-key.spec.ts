import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretBox } from './secret-box';
import { resolveSecretBox } from './secret-key';

describe('resolveSecretBox', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'tollgate-secret-key-'));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('without SECRETS_KEY generates a key once into DATA_DIR/secret-key (0600), and a restart opens what the first start sealed', () => {
    const first = resolveSecretBox({ DATA_DIR: root });
    const file = join(root, 'secret-key');
    expect(readFileSync(file, 'utf8').trim()).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first.describe).toBe(`secret key ${first.box.current.id}: generated into ${file} (SECRETS_KEY is unset)`);
    const sealed = first.box.seal('sk-survives-restart', 'channels.key');
    const second = resolveSecretBox({ DATA_DIR: root, SECRETS_KEY: '' });
    expect(second.describe).toBe(`secret key ${first.box.current.id}: read from ${file} (SECRETS_KEY is unset)`);
    expect(second.box.open(sealed, 'channels.key')).toBe('sk-survives-restart');
  });

  it('uses SECRETS_KEY when set, writes no file, and opens old values with SECRETS_OLD_KEYS; the log line holds key ids only', () => {
    const oldKey = 'old-secrets-key-old-secrets-key-0001';
    const newKey = 'new-secrets-key-new-secrets-key-0002';
    const before = resolveSecretBox({ DATA_DIR: root, SECRETS_KEY: oldKey }).box.seal('sk-before-rotation', 'channels.key');
    const { box, describe } = resolveSecretBox({ DATA_DIR: root, SECRETS_KEY: newKey, SECRETS_OLD_KEYS: ` ${oldKey} , ` });
    expect(box.open(before, 'channels.key')).toBe('sk-before-rotation');
    expect(box.needsSealing(before)).toBe(true);
    expect(describe).toMatch(/^secret key [0-9a-f]{12}: SECRETS_KEY; old keys for opening only: [0-9a-f]{12}$/);
    expect(describe).not.toContain(newKey);
    expect(describe).not.toContain(oldKey);
    expect(() => statSync(join(root, 'secret-key'))).toThrow();
    // Without the old key the value does not open.
    expect(() => new SecretBox(box.current).open(before, 'channels.key')).toThrow(/neither SECRETS_KEY nor in SECRETS_OLD_KEYS/);
  });

  it('refuses a short key, a short old key and the current key listed as old', () => {
    expect(() => resolveSecretBox({ DATA_DIR: root, SECRETS_KEY: 'too-short' })).toThrow('SECRETS_KEY must be at least 32 characters');
    const key = 'a-long-enough-secrets-key-000000000001';
    expect(() => resolveSecretBox({ DATA_DIR: root, SECRETS_KEY: key, SECRETS_OLD_KEYS: 'short' })).toThrow(
      'SECRETS_OLD_KEYS entry 1 must be at least 32 characters',
    );
    expect(() => resolveSecretBox({ DATA_DIR: root, SECRETS_KEY: key, SECRETS_OLD_KEYS: key })).toThrow(/holds the current key/);
  });
});
