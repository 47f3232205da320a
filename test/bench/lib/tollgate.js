'use strict';
/**
 * Tollgate as a benchmark target: build this tree into test/bench/.work/build, start it on its own database and
 * Redis prefix, and set it up through its own HTTP API (root session, a channel at the fake upstream, a token).
 */
const fs = require('node:fs');
const path = require('node:path');
const { request, BODY } = require('./client');
const { run, startService, httpOk, sleep } = require('./proc');
const { measureStorage } = require('./storage');

const ROOT = path.resolve(__dirname, '..', '..', '..');

/**
 * Compiles server + projections with the project's tsc into `outDir` (not dist/, which other work may be using).
 * Type errors elsewhere in the tree do not stop the emit: they are reported, and the build is used if main.js exists.
 */
async function buildTollgate(outDir, log) {
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const started = Date.now();
  const result = await run(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', outDir, '--sourceMap', 'false'], { cwd: ROOT });
  const main = path.join(outDir, 'server', 'src', 'main.js');
  if (!fs.existsSync(main)) throw new Error(`tsc emitted no ${main}:\n${(result.stdout + result.stderr).slice(0, 4000)}`);
  if (result.code !== 0) {
    const errors = (result.stdout + result.stderr).split('\n').filter((line) => line.includes('error TS'));
    log(`  tsc reported ${errors.length} type error(s) (emitted anyway); first: ${errors[0] ?? '?'}`);
  }
  writeImportsMap(outDir);
  log(`  built in ${((Date.now() - started) / 1000).toFixed(1)} s -> ${path.relative(ROOT, main)}`);
  return main;
}

/**
 * The build's own package.json "imports": the tree's aliases (#server/*, #projections/*) point into dist/, so a build
 * elsewhere would run dist/'s code for every aliased import. Node reads the nearest package.json, which this is.
 */
function writeImportsMap(outDir) {
  const imports = {};
  for (const [alias, target] of Object.entries(require(path.join(ROOT, 'package.json')).imports ?? {})) {
    const built = typeof target === 'string' ? target : target.default;
    if (built.startsWith('./dist/')) imports[alias] = `./${built.slice('./dist/'.length)}`;
  }
  fs.writeFileSync(path.join(outDir, 'package.json'), `${JSON.stringify({ private: true, imports }, null, 2)}\n`);
}

/**
 * Drops and re-creates the benchmark database, so every run starts from a fresh ledger (root/123456 is seeded), and
 * removes the charge journal of that database (DATA_DIR/journal/<name>, or RELAY_JOURNAL_DIR/<name>): segments a
 * killed run left behind belong to a ledger that no longer exists.
 */
async function freshDatabase(databaseUrl) {
  const { Client } = require(path.join(ROOT, 'node_modules', 'pg'));
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
  const journalRoot = process.env.RELAY_JOURNAL_DIR || path.join(path.resolve(ROOT, process.env.DATA_DIR || 'data'), 'journal');
  fs.rmSync(path.join(journalRoot, name.replace(/[^A-Za-z0-9_.-]/g, '_')), { recursive: true, force: true });
}

/** PIDs of the Postgres backends serving `database` (their CPU is the store's share of a request). */
async function backendPids(databaseUrl) {
  const { Client } = require(path.join(ROOT, 'node_modules', 'pg'));
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [name]);
    return rows.map((row) => Number(row.pid));
  } finally {
    await client.end();
  }
}

/**
 * What the ledger and the log projection hold after the load: QuotaConsumed events and consume log rows (type 2).
 * Waits up to `waitMs` for the projection to reach the event count, and says how long it took.
 */
async function settlementCounts(databaseUrl, waitMs = 30_000) {
  const { Client } = require(path.join(ROOT, 'node_modules', 'pg'));
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const count = async (sql) => Number((await client.query(sql)).rows[0].count);
    const started = Date.now();
    const events = await count(`SELECT count(*) AS count FROM events WHERE type = 'QuotaConsumed'`);
    let logs = await count('SELECT count(*) AS count FROM logs WHERE type = 2');
    while (logs < events && Date.now() - started < waitMs) {
      await sleep(250);
      logs = await count('SELECT count(*) AS count FROM logs WHERE type = 2');
    }
    return { events, logs, caughtUpMs: logs >= events ? Date.now() - started : NaN };
  } finally {
    await client.end();
  }
}

/** Bytes per relayed request in `events` and `logs` (lib/storage.js), once the log projection has caught up. */
async function storagePerRequest(databaseUrl) {
  const { Client } = require(path.join(ROOT, 'node_modules', 'pg'));
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await measureStorage(client);
  } finally {
    await client.end();
  }
}

/** Deletes every Redis key under the benchmark's prefix. */
async function dropRedisPrefix(redisUrl, prefix) {
  const Redis = require(path.join(ROOT, 'node_modules', 'ioredis'));
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/**
 * Starts `node [nodeArgs] main.js --role <roles>` and waits until GET /api/status answers. The benchmark runs the
 * production shape (docker-compose.yml): `api,worker` here, the projector as its own process (startProjector).
 */
async function startTollgate({ main, port, env, nodeArgs = [], logFile, roles = 'api,worker' }) {
  return startService({
    name: 'tollgate',
    command: process.execPath,
    args: [...nodeArgs, main, '--role', roles],
    cwd: ROOT,
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    logFile,
    ready: () => httpOk(`http://127.0.0.1:${port}/api/status`),
    timeoutMs: 180_000,
  });
}

/** True once a process holds the projector's leadership lock (advisory 7311003) on `databaseUrl`'s database. */
async function projectorLeading(databaseUrl) {
  const { Client } = require(path.join(ROOT, 'node_modules', 'pg'));
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.classid = 0 AND l.objid = 7311003 AND l.granted AND a.datname = $1`,
      [name],
    );
    return rows.length > 0;
  } finally {
    await client.end();
  }
}

/** Starts `node main.js --role projector` (no HTTP port) and waits until it holds the projector's leadership. */
async function startProjector({ main, env, logFile, databaseUrl, nodeArgs = [] }) {
  return startService({
    name: 'tollgate-projector',
    command: process.execPath,
    args: [...nodeArgs, main, '--role', 'projector'],
    cwd: ROOT,
    env,
    logFile,
    ready: () => projectorLeading(databaseUrl),
    timeoutMs: 180_000,
  });
}

function envelope(response, what) {
  const json = response.json;
  if (response.status >= 300 || !json || json.success !== true) {
    throw new Error(`${what}: HTTP ${response.status} ${response.text.slice(0, 500)}`);
  }
  return json.data;
}

/**
 * Through Tollgate's own console API: log in as root, raise root's quota, create an OpenAI-type channel pointing at
 * the fake upstream and a token with plenty of quota; returns the relay key (`sk-…`).
 */
async function setUpThroughApi({ port, upstreamPort, model = 'gpt-4o-mini', log }) {
  const base = `http://127.0.0.1:${port}`;
  const login = await request(`${base}/api/user/login`, { method: 'POST', body: { username: 'root', password: '123456' } });
  const user = envelope(login, 'POST /api/user/login');
  const cookie = []
    .concat(login.headers['set-cookie'] ?? [])
    .map((line) => line.split(';')[0])
    .join('; ');
  const headers = { cookie, 'New-Api-User': String(user.id) };
  const call = (method, url, body) => request(`${base}${url}`, { method, headers, body });

  // Root starts with 100,000,000 quota; a long run at thousands of RPS could spend that, so raise it (best effort).
  // Right after start-up the projector may not have folded root's first events yet: the form then carries an older
  // account revision and the edit is refused as "changed during your edit" (account_changed). Like an admin, reload
  // the user and try again.
  for (let attempt = 1; ; attempt += 1) {
    try {
      const self = envelope(await call('GET', `/api/user/${user.id}`), `GET /api/user/${user.id}`);
      envelope(await call('PUT', '/api/user/', { ...self, password: '', quota: 1e13 }), 'PUT /api/user/');
      break;
    } catch (error) {
      if (attempt < 10) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        continue;
      }
      log(`  note: could not raise root's quota (${error.message.split('\n')[0]}); it keeps 100,000,000`);
      break;
    }
  }

  envelope(
    await call('POST', '/api/channel/', {
      type: 1,
      name: 'bench-fake-upstream',
      key: 'sk-bench-fake-upstream-key',
      base_url: `http://127.0.0.1:${upstreamPort}`,
      openai_organization: '',
      test_model: '',
      other: '',
      models: model,
      group: 'default',
      model_mapping: '',
      status_code_mapping: '',
      priority: 0,
      weight: 0,
      auto_ban: 0,
    }),
    'POST /api/channel/',
  );

  const tokenName = `bench-${Date.now() % 1e8}`;
  envelope(
    await call('POST', '/api/token/', {
      name: tokenName,
      remain_quota: 1e12,
      expired_time: -1,
      unlimited_quota: false,
      model_limits_enabled: false,
      model_limits: '',
      allow_ips: '',
      group: '',
    }),
    'POST /api/token/',
  );
  const listed = envelope(await call('GET', '/api/token/?p=0&size=100'), 'GET /api/token/');
  const tokens = Array.isArray(listed) ? listed : (listed?.items ?? listed?.data ?? []);
  const token = tokens.find((candidate) => candidate.name === tokenName);
  if (!token?.key) throw new Error(`GET /api/token/ did not list the new token ${tokenName}: ${JSON.stringify(listed).slice(0, 300)}`);
  return { key: token.key.startsWith('sk-') ? token.key : `sk-${token.key}` };
}

/**
 * One non-streamed and one streamed request through the relay; retried for a few seconds (the routing table may
 * take a moment). Throws with the exact answer when the relay does not work.
 */
async function smokeRelay(url, headers, { attempts = 20 } = {}) {
  let last = '';
  for (let i = 0; i < attempts; i++) {
    try {
      const plain = await request(url, { method: 'POST', headers, body: BODY });
      const streamed = await request(url, { method: 'POST', headers, body: { ...BODY, stream: true } });
      if (plain.status === 200 && plain.json?.usage && streamed.status === 200 && streamed.text.includes('[DONE]')) return;
      last = `non-stream HTTP ${plain.status} ${plain.text.slice(0, 400)} | stream HTTP ${streamed.status} ${streamed.text.slice(0, 400)}`;
    } catch (error) {
      last = error.message;
    }
    await sleep(500);
  }
  throw new Error(`relay smoke test failed: ${last}`);
}

module.exports = {
  ROOT,
  buildTollgate,
  freshDatabase,
  backendPids,
  settlementCounts,
  storagePerRequest,
  dropRedisPrefix,
  startTollgate,
  startProjector,
  projectorLeading,
  setUpThroughApi,
  smokeRelay,
};
