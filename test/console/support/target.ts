import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createTestApp, type TestApp } from '../../support/app';

/** Where the console specs run: the real server serving console/dist at / and the API at /api. */
export interface ConsoleTarget {
  baseUrl: string;
  /** The default root account of an empty installation (root / 123456). */
  root: { username: string; password: string };
  app: TestApp;
  stop: () => Promise<void>;
}

export const CONSOLE_DIST = join(__dirname, '..', '..', '..', 'console', 'dist');

/**
 * The whole product (api + worker + projector) on a fresh database, listening on a free loopback port. The
 * specs drive it only through the browser and the documented API.
 */
export const startConsoleTarget = async (env: Record<string, string> = {}): Promise<ConsoleTarget> => {
  if (!existsSync(join(CONSOLE_DIST, 'index.html'))) {
    throw new Error('console/dist is missing: run `npm run build:console` before the console specs');
  }
  const app = await createTestApp({ env: { CONSOLE_DIST, ...env } });
  await app.app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.app.getHttpServer().address();
  if (!address || typeof address === 'string') throw new Error('the console target did not get a TCP port');
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    root: { username: 'root', password: '123456' },
    app,
    stop: () => app.close(),
  };
};
