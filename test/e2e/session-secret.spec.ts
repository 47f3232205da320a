import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestApp } from '../support/app';

/** Without SESSION_SECRET, a restart with the same DATA_DIR signs cookies as before (nobody is logged out). */
describe('session secret when SESSION_SECRET is unset', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'tollgate-session-e2e-'));
  });
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  /** The cookie signature of one boot of the application on DATA_DIR `dataDir`. */
  const signatureOfABoot = async (dataDir: string): Promise<string> => {
    const target = await createTestApp({ env: { SESSION_SECRET: '', DATA_DIR: dataDir }, roles: ['api'] });
    try {
      const fastify = target.app.getHttpAdapter().getInstance() as unknown as { signCookie(value: string): string };
      return fastify.signCookie('session-value');
    } finally {
      await target.close();
    }
  };

  it('signs with the same secret across restarts on one DATA_DIR, and another secret on another DATA_DIR', async () => {
    const first = await signatureOfABoot(join(root, 'one'));
    expect(await signatureOfABoot(join(root, 'one'))).toBe(first);
    expect(await signatureOfABoot(join(root, 'two'))).not.toBe(first);
  });
});
