'use strict';
/**
 * The `npmstart` target (`npm run bench -- --npm-start`): Tollgate started exactly as `npm start` starts it, i.e.
 * `node main.js` without --role: the supervisor, which runs api, worker and projector as three child processes. It
 * gets its own database (`<bench database>_start`) and Redis prefix, so its projector never competes with the
 * production shape's for the projector lock. Its CPU per request is that of the api and worker children (what the
 * production shape's `--role api,worker` process does), its Proj column the projector child's.
 */
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { startService, httpOk, sleep } = require('./proc');
const tollgate = require('./tollgate');

/** The supervisor's children by role, read from `ps` (`main.js --role <role> --no-migrate`). */
function childrenByRole(supervisorPid) {
  const roles = {};
  const rows = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(supervisorPid)], { encoding: 'utf8' })
    .trim()
    .split('\n');
  for (const row of rows) {
    const match = /^\s*(\d+)\s.*--role (api|worker|projector)\b/.exec(row);
    if (match) roles[match[2]] = Number(match[1]);
  }
  return roles;
}

/** The `npmstart` database: the benchmark database's name with `_start`. */
function startDatabaseUrl(databaseUrl) {
  const url = new URL(databaseUrl);
  url.pathname = `${url.pathname}_start`;
  return url.toString();
}

/**
 * Starts the supervisor on `port` with a fresh database, waits until the api child answers and the three children
 * run, sets it up through its API like the production shape, and returns the target.
 */
async function startNpmStartTarget({ main, env, databaseUrl, redisPrefix, logsDir, upstreamPort, port, log, writeLua }) {
  const startDb = startDatabaseUrl(databaseUrl);
  await tollgate.freshDatabase(startDb);
  const service = await startService({
    name: 'tollgate-npm-start',
    command: process.execPath,
    args: [main],
    cwd: tollgate.ROOT,
    env: { ...env, ROLE: 'supervisor', DATABASE_URL: startDb, REDIS_PREFIX: `${redisPrefix}-start`, PORT: String(port), HOST: '127.0.0.1' },
    logFile: path.join(logsDir, 'tollgate-npm-start.log'),
    ready: () => httpOk(`http://127.0.0.1:${port}/api/status`),
    timeoutMs: 180_000,
  });
  let roles = childrenByRole(service.pid);
  for (let waited = 0; Object.keys(roles).length < 3; waited += 100) {
    if (waited > 60_000) throw new Error(`the supervisor runs ${JSON.stringify(roles)}, not api, worker and projector`);
    await sleep(100);
    roles = childrenByRole(service.pid);
  }
  log(
    `- Tollgate as npm start runs it (supervisor pid ${service.pid}: api ${roles.api}, worker ${roles.worker}, projector ${roles.projector}) on 127.0.0.1:${port}`,
  );
  const { key } = await tollgate.setUpThroughApi({ port, upstreamPort, log });
  const headers = { Authorization: `Bearer ${key}` };
  return {
    name: 'npmstart',
    pid: roles.api,
    gatewayPids: [roles.api, roles.worker],
    projectorPids: [roles.projector],
    // Each process on its own line after the table (report.childSplitLines), the supervisor too (it pipes the logs).
    childPids: { api: roles.api, worker: roles.worker, projector: roles.projector, supervisor: service.pid },
    databaseUrl: startDb,
    redisPrefix: `${redisPrefix}-start`,
    service,
    headers,
    lua: writeLua(headers, { name: 'npmstart' }),
    perRequestLua: writeLua(headers, { name: 'npmstart', perRequest: true }),
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
  };
}

/** The `split` database: the benchmark database's name with `_split`. */
function splitDatabaseUrl(databaseUrl) {
  const url = new URL(databaseUrl);
  url.pathname = `${url.pathname}_split`;
  return url.toString();
}

/**
 * The `split` target (`--targets split`): the same three processes as npm start's children (`--role api`, `--role
 * worker`, `--role projector`), started by the bench itself, without a supervisor (no IPC channel, no log pipes:
 * each writes its own log file). Against `npmstart` it shows what the supervisor costs; against `tollgate` what
 * running the worker role in a process of its own costs. Its own database (`<bench database>_split`) and prefix.
 */
async function startSplitTarget({ main, env, databaseUrl, redisPrefix, logsDir, upstreamPort, port, log, writeLua }) {
  const splitDb = splitDatabaseUrl(databaseUrl);
  await tollgate.freshDatabase(splitDb);
  const splitEnv = { ...env, DATABASE_URL: splitDb, REDIS_PREFIX: `${redisPrefix}-split` };
  // The api process migrates the fresh database; the other two start once it answers, without migrating.
  const api = await tollgate.startTollgate({
    main,
    port,
    env: splitEnv,
    roles: 'api',
    logFile: path.join(logsDir, 'tollgate-split-api.log'),
  });
  const background = (role) =>
    startService({
      name: `tollgate-split-${role}`,
      command: process.execPath,
      args: [main, '--role', role, '--no-migrate'],
      cwd: tollgate.ROOT,
      env: splitEnv,
      logFile: path.join(logsDir, `tollgate-split-${role}.log`),
      ready: async () => true,
      timeoutMs: 60_000,
    });
  const worker = await background('worker');
  const projector = await background('projector');
  log(
    `- Tollgate as three processes started by hand, no supervisor (api ${api.pid}, worker ${worker.pid}, projector ${projector.pid}) on 127.0.0.1:${port}`,
  );
  const { key } = await tollgate.setUpThroughApi({ port, upstreamPort, log });
  const headers = { Authorization: `Bearer ${key}` };
  return {
    name: 'split',
    pid: api.pid,
    gatewayPids: [api.pid, worker.pid],
    projectorPids: [projector.pid],
    childPids: { api: api.pid, worker: worker.pid, projector: projector.pid },
    databaseUrl: splitDb,
    redisPrefix: `${redisPrefix}-split`,
    services: [api, worker, projector],
    headers,
    lua: writeLua(headers, { name: 'split' }),
    perRequestLua: writeLua(headers, { name: 'split', perRequest: true }),
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
  };
}

module.exports = { startNpmStartTarget, startSplitTarget, startDatabaseUrl, splitDatabaseUrl, childrenByRole };
