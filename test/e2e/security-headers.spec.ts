import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Response } from 'supertest';
import { createTestApp, type TestApp } from '../support/app';

/** The console's policy: Turnstile and the Telegram widget load scripts; the chat and home pages frame https URLs. */
const CONSOLE_POLICY = {
  'default-src': ["'self'"],
  'base-uri': ["'self'"],
  'object-src': ["'none'"],
  'script-src': ["'self'", 'https://challenges.cloudflare.com', 'https://telegram.org'],
  'script-src-attr': ["'none'"],
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:', 'https:'],
  'font-src': ["'self'", 'data:'],
  'connect-src': ["'self'"],
  'frame-src': ["'self'", 'https:'],
  'frame-ancestors': ["'self'"],
  'form-action': ["'self'"],
};

function policyOf(response: Response): Record<string, string[]> {
  const header = response.headers['content-security-policy'] as string | undefined;
  const directives = (header ?? '').split(';').map((directive) => directive.trim().split(/\s+/));
  return Object.fromEntries(directives.filter(([name]) => name).map(([name, ...sources]) => [name, sources]));
}

function expectBaseHeaders(response: Response): void {
  expect({
    nosniff: response.headers['x-content-type-options'],
    referrer: response.headers['referrer-policy'],
    frame: response.headers['x-frame-options'],
  }).toEqual({ nosniff: 'nosniff', referrer: 'strict-origin-when-cross-origin', frame: 'SAMEORIGIN' });
  expect(policyOf(response)).toEqual(CONSOLE_POLICY);
}

describe('security headers', () => {
  let consoleDir: string;
  const targets: TestApp[] = [];
  let target: TestApp;

  beforeAll(async () => {
    consoleDir = mkdtempSync(join(tmpdir(), 'tollgate-console-'));
    mkdirSync(join(consoleDir, 'assets'));
    writeFileSync(
      join(consoleDir, 'index.html'),
      '<!doctype html><div id="root"></div><script type="module" src="/assets/app.js"></script>',
    );
    writeFileSync(join(consoleDir, 'assets', 'app.js'), 'console.log(1);');
    target = await createTestApp({ env: { CONSOLE_DIST: consoleDir } });
    targets.push(target);
  });
  afterAll(async () => {
    for (const app of targets) await app.close();
    rmSync(consoleDir, { recursive: true, force: true });
  });

  it('sends them with the console index, an SPA route and a static asset', async () => {
    for (const path of ['/', '/login', '/assets/app.js']) {
      const response = await target.http().get(path).expect(200);
      expectBaseHeaders(response);
    }
  });

  it('sends them with API answers, refusals and unknown routes', async () => {
    expectBaseHeaders(await target.http().get('/api/status').expect(200));
    expectBaseHeaders(await target.http().get('/api/user/self').expect(401));
    expectBaseHeaders(await target.http().get('/api/no-such-route').expect(404));
  });

  it('leaves Strict-Transport-Security to the TLS-terminating proxy', async () => {
    const response = await target.http().get('/api/status').expect(200);
    expect(response.headers['strict-transport-security']).toBeUndefined();
  });

  it('marks relay answers nosniff, on the fast path and through Fastify', async () => {
    const fastify = await createTestApp({ env: { RELAY_FAST_PATH: 'off' } });
    targets.push(fastify);
    for (const app of [target, fastify]) {
      const post = await app.http().post('/v1/chat/completions').set('Content-Type', 'application/json').send('{}');
      expect(post.status).toBe(401);
      expect(post.headers['x-content-type-options']).toBe('nosniff');
      const models = await app.http().get('/v1/models');
      expect(models.status).toBe(401);
      expectBaseHeaders(models);
    }
  });
});
