import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { freePort } from './support/gateway-process';
import { quotaConsumedEventId } from '#server/modules/accounts/index';

jest.setTimeout(240_000);

const ROOT = resolve(__dirname, '..', '..');

/** Every process below `pid` (children, grandchildren …), from `ps`. */
function descendants(pid: number): number[] {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number));
  const found: number[] = [];
  const queue = [pid];
  while (queue.length) {
    const parent = queue.shift()!;
    for (const [child, ppid] of rows) {
      if (ppid === parent) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

/** Running: the pid exists and is not a zombie waiting for its reaper. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return '';
  }
}

/**
 * `npm start` exactly as a container runtime or a service manager runs it: the supervisor with one child per role,
 * and a redis-server of its own (REDIS_URL unset, REDIS_PORT on a free port). SIGTERM to the npm process must reach
 * the supervisor, which stops every child (the api ships the charge it still held) and then the redis-server.
 */
describe('npm start: SIGTERM stops everything it started', () => {
  const data = mkdtempSync(join(tmpdir(), 'tollgate-start-'));
  const upstream = new OpenAIUpstreamFake();
  let database: TestDatabase;
  let pg: Client;
  let npm: ChildProcess | null = null;
  let output = '';

  beforeAll(async () => {
    await upstream.start();
    database = await createTestDatabase({ migrate: false });
    pg = new Client({ connectionString: database.url });
    await pg.connect();
  });

  afterAll(async () => {
    if (npm && npm.exitCode === null) npm.kill('SIGKILL');
    const pidFile = join(data, 'redis', 'redis.pid');
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, 'utf8'));
      if (running(pid)) process.kill(pid, 'SIGKILL');
    }
    await pg?.end().catch(() => undefined);
    await database?.drop();
    await upstream.close();
    rmSync(data, { recursive: true, force: true });
  });

  async function api(base: string, method: string, path: string, token: string | null, body?: unknown) {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: token } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as { success: boolean; data?: any };
    if (!json.success) throw new Error(`${method} ${path}: ${JSON.stringify(json)}`);
    return json.data;
  }

  it('a supervisor killed outright (SIGKILL) leaves no role child running: each stops when its IPC channel closes', async () => {
    const port = await freePort();
    const killedData = mkdtempSync(join(tmpdir(), 'tollgate-start-killed-'));
    let log = '';
    const supervisor = spawn(process.execPath, ['dist/server/src/main.js'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATA_DIR: killedData,
        DATABASE_URL: database.url,
        REDIS_URL: process.env.TEST_REDIS_URL,
        REDIS_PREFIX: `tg-start-killed-${process.pid}`,
        HOST: '127.0.0.1',
        PORT: String(port),
        SESSION_SECRET: 'test-session-secret-test-session-secret',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    supervisor.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    supervisor.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    try {
      const deadline = Date.now() + 120_000;
      while (
        !(await fetch(`http://127.0.0.1:${port}/api/status`).then(
          (response) => response.ok,
          () => false,
        ))
      ) {
        if (supervisor.exitCode !== null || Date.now() > deadline) throw new Error(`the supervisor did not answer:\n${log.slice(-4000)}`);
        await new Promise((done) => setTimeout(done, 250));
      }
      let children = descendants(supervisor.pid!);
      while (children.length < 3 && Date.now() < deadline) {
        await new Promise((done) => setTimeout(done, 100));
        children = descendants(supervisor.pid!);
      }
      expect(children.map(commandOf).filter((command) => /--role (api|worker|projector) --no-migrate/.test(command))).toHaveLength(3);
      supervisor.kill('SIGKILL');
      const gone = Date.now() + 20_000;
      const killed = Date.now();
      while (children.some(running) && Date.now() < gone) await new Promise((done) => setTimeout(done, 100));
      process.stdout.write(`children gone ${Date.now() - killed} ms after the supervisor's SIGKILL\n`);
      expect(children.filter(running).map((pid) => `${pid} ${commandOf(pid)}`)).toEqual([]);
    } finally {
      if (supervisor.exitCode === null) supervisor.kill('SIGKILL');
      rmSync(killedData, { recursive: true, force: true });
    }
  });

  it('ROLE=all runs every role in the one process, and SIGTERM stops it and the redis-server it started', async () => {
    const port = await freePort();
    const redisPort = await freePort();
    const allData = mkdtempSync(join(tmpdir(), 'tollgate-start-all-'));
    let log = '';
    const single = spawn('npm', ['start'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        ROLE: 'all',
        DATA_DIR: allData,
        DATABASE_URL: database.url,
        REDIS_PORT: String(redisPort),
        REDIS_PREFIX: `tg-start-all-${process.pid}`,
        ALLOW_PACKAGE_INSTALL: 'false',
        HOST: '127.0.0.1',
        PORT: String(port),
        SESSION_SECRET: 'test-session-secret-test-session-secret',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    single.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    single.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
    try {
      const deadline = Date.now() + 150_000;
      while (
        !(await fetch(`http://127.0.0.1:${port}/api/status`).then(
          (response) => response.ok,
          () => false,
        ))
      ) {
        if (single.exitCode !== null || Date.now() > deadline) throw new Error(`ROLE=all npm start did not answer:\n${log.slice(-4000)}`);
        await new Promise((done) => setTimeout(done, 250));
      }
      // One node process (npm's own child), no supervisor and no role children.
      const tree = descendants(single.pid!);
      expect(tree.map(commandOf).filter((command) => /main\.js/.test(command))).toEqual(['node dist/server/src/main.js']);
      expect(log).toMatch(/roles: api, worker, projector/);
      const redisPid = Number(readFileSync(join(allData, 'redis', 'redis.pid'), 'utf8'));
      expect(running(redisPid)).toBe(true);

      const everything = [...tree, redisPid];
      single.kill('SIGTERM');
      await new Promise<void>((done) => (single.exitCode !== null ? done() : single.once('exit', () => done())));
      const gone = Date.now() + 15_000;
      while (everything.some(running) && Date.now() < gone) await new Promise((done) => setTimeout(done, 100));
      expect(everything.filter(running).map((pid) => `${pid} ${commandOf(pid)}`)).toEqual([]);
      expect(log).toMatch(/redis: stopped the redis-server started at start-up/);
    } finally {
      if (single.exitCode === null) single.kill('SIGKILL');
      rmSync(allData, { recursive: true, force: true });
    }
  });

  it('runs api, worker and projector as children, and on SIGTERM ships the last charge and leaves nothing running', async () => {
    const port = await freePort();
    const redisPort = await freePort();
    const base = `http://127.0.0.1:${port}`;
    npm = spawn('npm', ['start'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATA_DIR: data,
        DATABASE_URL: database.url,
        REDIS_PORT: String(redisPort),
        REDIS_PREFIX: `tg-start-${process.pid}`,
        ALLOW_PACKAGE_INSTALL: 'false',
        HOST: '127.0.0.1',
        PORT: String(port),
        SESSION_SECRET: 'test-session-secret-test-session-secret',
        // The charge waits 2 s in the journal before its ledger append: the SIGTERM comes first.
        SETTLEMENT_LINGER_MS: '2000',
        READ_YOUR_WRITES_TIMEOUT_MS: '15000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    npm.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    npm.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 150_000;
    for (;;) {
      if (npm.exitCode !== null) throw new Error(`npm start exited (${npm.exitCode}):\n${output.slice(-4000)}`);
      const ok = await fetch(`${base}/api/status`).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error(`npm start did not answer /api/status:\n${output.slice(-4000)}`);
      await new Promise((done) => setTimeout(done, 250));
    }

    // The shape: npm → the supervisor (npm's own child, no shell between) → one node child per role.
    const tree = descendants(npm.pid!);
    const commands = tree.map(commandOf);
    expect(commands.filter((command) => /main\.js --role api --no-migrate/.test(command))).toHaveLength(1);
    expect(commands.filter((command) => /main\.js --role worker --no-migrate/.test(command))).toHaveLength(1);
    expect(commands.filter((command) => /main\.js --role projector --no-migrate/.test(command))).toHaveLength(1);
    const redisPid = Number(readFileSync(join(data, 'redis', 'redis.pid'), 'utf8'));
    expect(running(redisPid)).toBe(true);
    expect(commandOf(redisPid)).toContain(`127.0.0.1:${redisPort}`);
    // Each role logs through the one stream, prefixed.
    expect(output).toMatch(/\[api\] .*listening on http:\/\/127\.0\.0\.1:/);
    // The projector may start logging after the api already answers (its own Nest start): wait for its first line.
    const projectorDeadline = Date.now() + 30_000;
    while (!/\[projector\] /.test(output) && Date.now() < projectorDeadline) await new Promise((done) => setTimeout(done, 100));
    expect(output).toMatch(/\[projector\] /);

    // A child that dies is restarted: the api, SIGKILLed, answers again under a new pid.
    const apiPid = tree.find((pid) => /--role api /.test(commandOf(pid)))!;
    process.kill(apiPid, 'SIGKILL');
    const back = Date.now() + 60_000;
    let newApi: number | undefined;
    while (!newApi) {
      newApi = descendants(npm.pid!).find((pid) => pid !== apiPid && / --role api /.test(commandOf(pid)));
      if (Date.now() > back) throw new Error(`the api was not restarted:\n${output.slice(-3000)}`);
      if (!newApi) await new Promise((done) => setTimeout(done, 100));
    }
    while (
      !(await fetch(`${base}/api/status`).then(
        (response) => response.ok,
        () => false,
      ))
    ) {
      if (Date.now() > back) throw new Error(`the restarted api does not answer:\n${output.slice(-3000)}`);
      await new Promise((done) => setTimeout(done, 200));
    }
    expect(output).toMatch(/supervisor: api: exited \(signal SIGKILL\) after \d+ ms; restarting in 500 ms/);

    // A relayed request charged just before the SIGTERM.
    const token = 'start-root-access-token'.padEnd(32, 'x');
    await pg.query('UPDATE users SET access_token = $1 WHERE username = $2', [token, 'root']);
    await api(base, 'POST', '/api/channel/', token, {
      type: 1,
      key: 'upstream-key',
      name: 'start-upstream',
      base_url: upstream.baseUrl,
      models: 'gpt-3.5-turbo',
      group: 'default',
      priority: 0,
      weight: 0,
      model_mapping: '',
      other: '',
      auto_ban: 0,
    });
    await api(base, 'POST', '/api/token/', token, {
      name: 'start-token',
      remain_quota: 1_000_000,
      expired_time: -1,
      unlimited_quota: false,
      model_limits_enabled: false,
      model_limits: '',
      group: '',
    });
    const list = await api(base, 'GET', '/api/token/?p=0&size=1', token);
    const key = `sk-${(list.items?.[0] ?? list[0]).key}`;
    let requestId: string | null = null;
    const until = Date.now() + 20_000;
    while (!requestId) {
      const response = await fetch(`${base}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hello' }] }),
      });
      await response.text();
      if (response.status === 200) requestId = response.headers.get('x-oneapi-request-id');
      else if (Date.now() > until) throw new Error(`the relay never answered 200 (last ${response.status})`);
      else await new Promise((done) => setTimeout(done, 200));
    }
    const charged = async () =>
      (await pg.query(`SELECT 1 FROM events WHERE type = 'QuotaConsumed' AND event_id = $1::uuid`, [quotaConsumedEventId(requestId!)]))
        .rowCount;
    expect(await charged()).toBe(0); // still in the api's journal

    const everything = [...descendants(npm.pid!), redisPid];
    const sent = Date.now();
    npm.kill('SIGTERM');
    await new Promise<void>((done) => (npm!.exitCode !== null ? done() : npm!.once('exit', () => done())));
    const gone = Date.now() + 15_000;
    while (everything.some(running) && Date.now() < gone) await new Promise((done) => setTimeout(done, 100));
    const elapsed = Date.now() - sent;

    expect(everything.filter(running).map((pid) => `${pid} ${commandOf(pid)}`)).toEqual([]);
    expect(elapsed).toBeLessThan(15_000);
    expect(await charged()).toBe(1);
    expect(output).toMatch(/redis: stopped the redis-server started at start-up/);
    expect(output).toMatch(/supervisor: stopped in \d+ ms/);
  });
});
