import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveSessionSecret } from './session-secret';

describe('resolveSessionSecret', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'tollgate-session-secret-'));
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('generates 32 random bytes as hex once into DATA_DIR/session-secret, readable by the owner only', () => {
    const dataDir = join(root, 'data', 'nested');
    const first = resolveSessionSecret(dataDir);
    expect(first).toEqual({ secret: expect.stringMatching(/^[0-9a-f]{64}$/), file: join(dataDir, 'session-secret'), created: true });
    expect(readFileSync(first.file, 'utf8').trim()).toBe(first.secret);
    expect(statSync(first.file).mode & 0o777).toBe(0o600);
  });

  it('gives the same secret on every start with the same DATA_DIR, and another one for another DATA_DIR', () => {
    const first = resolveSessionSecret(join(root, 'a'));
    const second = resolveSessionSecret(join(root, 'a'));
    expect(second).toEqual({ ...first, created: false });
    const other = resolveSessionSecret(join(root, 'b'));
    expect(other.secret).not.toBe(first.secret);
  });

  it('keeps a secret the operator wrote into the file, and leaves no temporary file behind', () => {
    writeFileSync(join(root, 'session-secret'), '  my-own-secret-value \n');
    expect(resolveSessionSecret(root)).toMatchObject({ secret: 'my-own-secret-value', created: false });
    resolveSessionSecret(join(root, 'fresh'));
    expect(readdirSync(join(root, 'fresh'))).toEqual(['session-secret']);
  });

  it('refuses an empty file instead of replacing it', () => {
    writeFileSync(join(root, 'session-secret'), '\n');
    expect(() => resolveSessionSecret(root)).toThrow(/session-secret is empty/);
  });
});
