#!/usr/bin/env node
'use strict';
/**
 * `npm run bench [-- options]`: Tollgate against direct-to-upstream and Portkey, on this machine, in one run.
 * Method and how to read the output: docs/benchmark.md. Options:
 *
 *   --quick              3 s phases, 2 rounds, 100 TTFB samples (to check the harness, not to quote)
 *   --rounds N           rounds per phase, order alternating (default 3)
 *   --duration S         seconds per wrk phase (default 10)
 *   --ttfb-count N       streamed requests per TTFB round (default 300)
 *   --warmup S           seconds of wrk -c50 against each target before the first round (default 3, --quick 1). V8 goes on
 *                        optimising Tollgate's hot functions for ~150,000 requests (docs/benchmark.md, 2026-11-26,
 *                        eighth session): the default rounds include some of that compiling; at ~8,000 requests/s
 *                        --warmup 30 is past it (a slower host needs longer)
 *   --targets a,b,c      any of direct,tollgate,portkey,npmstart,split (default direct,tollgate,portkey); split: api,
 *                        worker and projector as three processes started by hand, no supervisor (lib/npm-start.js)
 *   --npm-start          add the npmstart target: Tollgate started as `npm start` starts it (the supervisor and its
 *                        api, worker and projector children), measured beside the production shape (lib/npm-start.js)
 *   --profile            afterwards, run Tollgate under `node --cpu-prof` for one saturation phase; top self time
 *     --profile-connections N   wrk connections of the profiled phase (default 50; 1 shows the unloaded path)
 *   --streams            the slow-stream mode instead: 1,000 paced streams held through Tollgate, RSS before/during/after
 *     --stream-count N   (default 1000)   --chunk-ms N (default 100)   --stream-seconds S (default 20)
 *     --settle S         seconds to wait after the streams for GC before reading RSS again (default 30)
 *     --waves N          bursts of streams one after the other, each followed by the settle (default 1); the
 *                        targets judge the first, later ones show whether memory is retained or leaked
 *     --target NAME      tollgate (default) or portkey
 *   --one-cpu-loop       add a c=1 phase with wrk, the fake upstream and the target's process (all threads) on CPU 0,
 *                        Postgres, Redis and the projector free (taskset); printed beside the targets, never judged
 *   --serve              start the fake upstream, Tollgate (api,worker + projector) and set them up, print the URL, the
 *                        key and a wrk command, then keep running until Ctrl-C (to probe or profile by hand)
 *   --no-build           reuse the last build in test/bench/.work/build
 *   --keep-db            leave the tollgate_bench database in place at the end
 *   --rebuild            the rebuild mode instead: a generated ledger of --events N (default 1,000,000) events, the
 *                        live projector catching up on it, then `npm run projections:rebuild` timed and compared with
 *                        live (test/bench/rebuild/rebuild-bench.ts; its options are listed there)
 *
 * Environment: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/tollgate_bench; dropped and
 * re-created each run), BENCH_REDIS_URL (default redis://127.0.0.1:6379), BENCH_NODE_ARGS (extra node flags for
 * the gateway process, e.g. "--max-semi-space-size=32"), BENCH_PROJECTOR_NODE_ARGS (the same for the projector process,
 * e.g. "--single-threaded-gc"); other variables pass through to Tollgate as they are. Everything it installs goes into
 * test/bench/.work/ (git-ignored): Portkey 1.15.2 with @hono/node-server pinned to 1.14.2, the build, logs, results.
 */
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

if (process.argv.includes('--rebuild')) {
  // The rebuild mode (docs/benchmark.md, "Rebuild"): TypeScript run from source, so its ledger is built by the
  // product's own deciders and event builders as this tree has them.
  const { status } = require('node:child_process').spawnSync(
    process.execPath,
    [
      '-r',
      path.join(__dirname, '..', 'support', 'swc-register.js'),
      path.join(__dirname, 'rebuild', 'rebuild-bench.ts'),
      ...process.argv.slice(2),
    ],
    { stdio: 'inherit' },
  );
  process.exit(status ?? 1);
}
const { parseFlags } = require('./lib/flags');
const { parseWrk, median } = require('./lib/stats');
const { PER_REQUEST_LUA } = require('./lib/per-request-lua');
const proc = require('./lib/proc');
const client = require('./lib/client');
const tollgate = require('./lib/tollgate');
const report = require('./lib/report');
const { storageLine } = require('./lib/storage');
const { summarizeProfile, readProfile } = require('./lib/profile');
const npmStart = require('./lib/npm-start');

const ROOT = tollgate.ROOT;
const WORK = path.join(__dirname, '.work');
const LOGS = path.join(WORK, 'logs');
const PORTKEY_VERSION = '1.15.2';
const HONO_NODE_SERVER = '1.14.2';

const flags = parseFlags(process.argv.slice(2), {});
const quick = Boolean(flags.quick);
const opt = {
  rounds: Number(flags.rounds ?? (quick ? 2 : 3)),
  duration: Number(flags.duration ?? (quick ? 3 : 10)),
  warmup: Number(flags.warmup ?? (quick ? 1 : 3)),
  ttfbCount: Number(flags['ttfb-count'] ?? (quick ? 100 : 300)),
  targets: String(flags.targets ?? 'direct,tollgate,portkey')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean)
    .concat(flags['npm-start'] && !String(flags.targets ?? '').includes('npmstart') ? ['npmstart'] : []),
  streamCount: Number(flags['stream-count'] ?? 1000),
  chunkMs: Number(flags['chunk-ms'] ?? 100),
  streamSeconds: Number(flags['stream-seconds'] ?? 20),
  settle: Number(flags.settle ?? (quick ? 10 : 30)),
  waves: Math.max(1, Number(flags.waves ?? 1)),
  streamTarget: String(flags.target ?? 'tollgate'),
  databaseUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/tollgate_bench',
  redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
  redisPrefix: `tollgate-bench-${process.pid}`,
};
if (!Number.isInteger(opt.warmup) || opt.warmup < 1) throw new Error(`--warmup must be whole seconds, 1 or more, not ${flags.warmup}`);
for (const target of opt.targets) {
  if (!['direct', 'tollgate', 'portkey', 'npmstart', 'split'].includes(target)) throw new Error(`unknown target ${target}`);
}

const log = (line = '') => process.stdout.write(`${line}\n`);
const stamp = () => new Date().toISOString().replace(/[:.]/g, '-');

// ---------------------------------------------------------------------------------------------------- tools

function haveCommand(name) {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function ensureWrk() {
  if (haveCommand('wrk')) return;
  if (process.getuid && process.getuid() === 0 && haveCommand('apt-get')) {
    log('- wrk is missing: apt-get install -y wrk');
    execFileSync('sh', ['-c', 'apt-get install -y wrk || (apt-get update && apt-get install -y wrk)'], { stdio: 'inherit' });
    if (haveCommand('wrk')) return;
  }
  throw new Error('wrk is required (Debian/Ubuntu: apt-get install wrk; macOS: brew install wrk)');
}

/**
 * Portkey 1.15.2 in test/bench/.work/portkey, with @hono/node-server pinned (Portkey issue #1389's workaround for
 * streams; on Node 20 lib/portkey-stream-fix.cjs is still needed).
 */
function ensurePortkey() {
  const dir = path.join(WORK, 'portkey');
  const installed = path.join(dir, 'node_modules', '@portkey-ai', 'gateway', 'package.json');
  const hono = path.join(dir, 'node_modules', '@hono', 'node-server', 'package.json');
  const version = (file) => (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')).version : null);
  if (version(installed) === PORTKEY_VERSION && version(hono) === HONO_NODE_SERVER) return dir;
  log(
    `- installing @portkey-ai/gateway@${PORTKEY_VERSION} (override @hono/node-server ${HONO_NODE_SERVER}) into ${path.relative(ROOT, dir)}`,
  );
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    `${JSON.stringify(
      {
        name: 'tollgate-bench-portkey',
        private: true,
        description: 'Portkey OSS for the Tollgate benchmark (installed by test/bench/run.js)',
        dependencies: { '@portkey-ai/gateway': PORTKEY_VERSION },
        overrides: { '@hono/node-server': HONO_NODE_SERVER },
      },
      null,
      2,
    )}\n`,
  );
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: dir, stdio: 'inherit' });
  if (version(installed) !== PORTKEY_VERSION) throw new Error('Portkey did not install');
  return dir;
}

// ---------------------------------------------------------------------------------------------------- services

async function startUpstream(extraArgs = [], name = 'fake-upstream') {
  const service = await proc.startService({
    name,
    command: process.execPath,
    args: [path.join(__dirname, 'lib', 'fake-upstream.js'), '--port', '0', ...extraArgs],
    logFile: path.join(LOGS, `${name}.log`),
    ready: /ready (\d+)/,
  });
  service.port = Number(service.match[1]);
  return service;
}

async function startPortkey(portkeyDir) {
  const port = await proc.freePort();
  const service = await proc.startService({
    name: 'portkey',
    command: process.execPath,
    args: [
      '-r',
      path.join(__dirname, 'lib', 'force-loopback.cjs'),
      '-r',
      path.join(__dirname, 'lib', 'portkey-stream-fix.cjs'),
      path.join(portkeyDir, 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js'),
      `--port=${port}`,
      '--headless',
    ],
    cwd: portkeyDir,
    env: { PORT: String(port), NODE_ENV: 'production' },
    logFile: path.join(LOGS, 'portkey.log'),
    ready: () => proc.portOpen(port),
  });
  service.port = port;
  return service;
}

let tollgateMain = null;

async function prepareTollgate() {
  if (tollgateMain) return;
  const outDir = path.join(WORK, 'build');
  const main = path.join(outDir, 'server', 'src', 'main.js');
  if (flags['no-build'] && fs.existsSync(main)) {
    log(`- Tollgate: reusing ${path.relative(ROOT, main)} (--no-build)`);
  } else {
    log('- Tollgate: compiling this tree (tsc -p tsconfig.build.json) into test/bench/.work/build');
    await tollgate.buildTollgate(outDir, log);
  }
  tollgateMain = main;
  log(`- Tollgate: fresh database ${new URL(opt.databaseUrl).pathname.slice(1)}, Redis prefix ${opt.redisPrefix}`);
  await tollgate.freshDatabase(opt.databaseUrl);
}

function tollgateEnv() {
  return {
    DATABASE_URL: opt.databaseUrl,
    REDIS_URL: opt.redisUrl,
    REDIS_PREFIX: opt.redisPrefix,
    SESSION_SECRET: 'bench-session-secret-not-for-production',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
  };
}

/** The projector process (`--role projector`), shared by every Tollgate api process of the run. */
let projector = null;

/**
 * Tollgate in its production shape (docker-compose.yml): one process `--role api,worker` (the gateway, whose CPU is
 * measured as Tollgate's) and one `--role projector` (folds every QuotaConsumed into the read models; its CPU is
 * reported apart). The projector is started once, after the first api process has migrated the database.
 */
async function startTollgate(nodeArgs = [], logName = 'tollgate') {
  const port = await proc.freePort();
  const extra = (process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const service = await tollgate.startTollgate({
    main: tollgateMain,
    port,
    env: tollgateEnv(),
    nodeArgs: [...extra, ...nodeArgs],
    logFile: path.join(LOGS, `${logName}.log`),
  });
  service.port = port;
  if (!projector || projector.child.exitCode !== null || projector.child.signalCode !== null) {
    const projectorArgs = (process.env.BENCH_PROJECTOR_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
    projector = await tollgate.startProjector({
      main: tollgateMain,
      env: tollgateEnv(),
      logFile: path.join(LOGS, 'tollgate-projector.log'),
      databaseUrl: opt.databaseUrl,
      nodeArgs: projectorArgs,
    });
    services.push(projector);
    log(`- Tollgate projector (--role projector) pid ${projector.pid} holds the projector lock`);
  }
  return service;
}

// ---------------------------------------------------------------------------------------------------- measuring

/**
 * The wrk script: a POST of client.BODY with `headers`, the same bytes to every target (Tollgate reads the key,
 * Portkey forwards it upstream, the fake ignores it). With `perRequest`, the script also times every request with
 * CLOCK_MONOTONIC (LuaJIT's ffi) and prints the list at the end: wrk 4.1's own percentiles are corrected for
 * coordinated omission (for each request slower than twice the mean interval it adds made-up samples, one per
 * interval it "should" have sent), so at c=1 they are not the latencies of the requests that were made. One
 * connection per thread only: request() and response() cannot be paired per connection. docs/benchmark.md,
 * "What wrk's percentiles are at c=1".
 */
function writeLua(headers, { perRequest = false, name = 'post' } = {}) {
  const file = path.join(WORK, perRequest ? `${name}-per-request.lua` : `${name}.lua`);
  const lines = [
    'wrk.method = "POST"',
    `wrk.body = ${JSON.stringify(JSON.stringify(client.BODY))}`,
    'wrk.headers["Content-Type"] = "application/json"',
    ...Object.entries(headers).map(([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`),
  ];
  if (perRequest) lines.push(PER_REQUEST_LUA);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

async function wrk(url, connections, seconds, lua, { cpus = null } = {}) {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', lua, url];
  const result = cpus === null ? await proc.run('wrk', args) : await proc.run('taskset', ['-c', cpus, 'wrk', ...args]);
  if (result.code !== 0) throw new Error(`wrk failed (${result.code}): ${result.stderr || result.stdout}`);
  return parseWrk(result.stdout);
}

/** CPU µs of a set of PIDs; `pids` may be a function (Postgres backends come and go). */
async function cpuOf(pids) {
  const list = typeof pids === 'function' ? await pids() : pids;
  const snapshot = new Map();
  for (const pid of list) snapshot.set(pid, proc.cpuMicros(pid));
  return snapshot;
}

function cpuDelta(before, after) {
  let total = 0;
  for (const [pid, us] of after) {
    if (!Number.isFinite(us)) continue;
    total += us - (before.get(pid) ?? 0);
  }
  return total;
}

/** CPU µs of each process of a target made of several (`childPids`: the npmstart target's children), or null. */
async function childCpu(target) {
  if (!target.childPids) return null;
  const entries = await Promise.all(Object.entries(target.childPids).map(async ([role, pid]) => [role, await cpuOf([pid])]));
  return Object.fromEntries(entries);
}

async function loadPhase(target, connections, lua, wrkOptions = {}) {
  const gatewayPids = target.gatewayPids ?? (target.pid ? [target.pid] : []);
  const storeDb = target.databaseUrl ?? (target.name === 'tollgate' ? opt.databaseUrl : null);
  const storePids = storeDb ? () => tollgate.backendPids(storeDb).catch(() => []) : () => [];
  const projectorPids = target.projectorPids ?? (target.name === 'tollgate' && projector ? [projector.pid] : []);
  const g0 = await cpuOf(gatewayPids);
  const s0 = await cpuOf(storePids);
  const p0 = await cpuOf(projectorPids);
  const m0 = await cpuOf([upstream.pid]);
  const c0 = await childCpu(target);
  const w = await wrk(target.url, connections, opt.duration, lua, wrkOptions);
  const g1 = await cpuOf(gatewayPids);
  const s1 = await cpuOf(storePids);
  const p1 = await cpuOf(projectorPids);
  const m1 = await cpuOf([upstream.pid]);
  const c1 = await childCpu(target);
  const per = (delta) => (w.requests > 0 ? delta / w.requests : NaN);
  return {
    ...w,
    ...(c0 ? { childUs: Object.fromEntries(Object.keys(c0).map((role) => [role, per(cpuDelta(c0[role], c1[role]))])) } : {}),
    cpuUs: gatewayPids.length ? per(cpuDelta(g0, g1)) : NaN,
    storeUs: storeDb ? per(cpuDelta(s0, s1)) : NaN,
    projectorUs: projectorPids.length ? per(cpuDelta(p0, p1)) : NaN,
    mockUs: per(cpuDelta(m0, m1)),
  };
}

/**
 * Runs `measure` with the fake upstream and the target's process (every thread) on CPU 0, then gives them back the
 * CPUs they had, even when it fails. The projector, Postgres and Redis are left where the scheduler puts them.
 */
async function onOneCpu(target, measure) {
  const pids = [upstream.pid, ...(target.pid ? [target.pid] : [])];
  const before = new Map(pids.map((pid) => [pid, proc.cpusOf(pid)]));
  for (const pid of pids) proc.pinProcess(pid, '0');
  try {
    return await measure();
  } finally {
    for (const [pid, cpus] of before) proc.pinProcess(pid, cpus);
  }
}

let upstream = null;
const services = [];

function describe(target, phase, result) {
  const bits = [];
  if ('rps' in result)
    bits.push(`${report.fmtInt(result.rps)} rps`, `p50 ${report.fmt(result.p50, 3)} ms`, `p99 ${report.fmt(result.p99, 3)} ms`);
  if (Number.isFinite(result.wrkP99))
    bits.push(`(${report.fmtInt(result.perRequest)} requests timed; wrk's corrected p99 ${report.fmt(result.wrkP99, 3)} ms)`);
  if (Number.isFinite(result.cpuUs)) bits.push(`cpu ${report.fmtInt(result.cpuUs)} us/req`);
  if (Number.isFinite(result.projectorUs)) bits.push(`projector ${report.fmtInt(result.projectorUs)} us/req`);
  if (Number.isFinite(result.storeUs)) bits.push(`pg ${report.fmtInt(result.storeUs)} us/req`);
  if ('ttfbP50' in result)
    bits.push(`ttfb p50 ${report.fmt(result.ttfbP50, 3)} ms`, `p99 ${report.fmt(result.ttfbP99, 3)} ms`, `n=${result.count}`);
  if (result.non2xx || result.socketErrors || result.errors) {
    bits.push(
      `ERRORS non2xx=${result.non2xx ?? 0} socket=${result.socketErrors ?? 0} stream=${result.errors ?? 0}${result.lastError ? ` (${result.lastError.slice(0, 160)})` : ''}`,
    );
  }
  log(`    ${phase.padEnd(4)} ${target.padEnd(8)} ${bits.join(', ')}`);
}

async function benchmarkMode() {
  ensureWrk();
  const portkeyDir = opt.targets.includes('portkey') ? ensurePortkey() : null;
  upstream = await startUpstream();
  services.push(upstream);
  log(`- fake upstream on 127.0.0.1:${upstream.port} (pid ${upstream.pid})`);

  const targets = [];
  const skipped = {};
  let relayKey = 'sk-bench-no-tollgate-key-000000000000000000000000000';
  if (opt.targets.includes('direct'))
    targets.push({ name: 'direct', pid: null, url: `http://127.0.0.1:${upstream.port}/v1/chat/completions` });
  if (opt.targets.includes('tollgate')) {
    try {
      await prepareTollgate();
      const service = await startTollgate();
      services.push(service);
      log(`- Tollgate --role api,worker on 127.0.0.1:${service.port} (pid ${service.pid}); set-up through its API`);
      const { key } = await tollgate.setUpThroughApi({ port: service.port, upstreamPort: upstream.port, log });
      relayKey = key;
      targets.push({ name: 'tollgate', pid: service.pid, service, url: `http://127.0.0.1:${service.port}/v1/chat/completions` });
    } catch (error) {
      skipped.tollgate = error.message;
      log(`! Tollgate is not measured: ${error.message}`);
    }
  }
  if (opt.targets.includes('npmstart')) {
    try {
      await prepareTollgate();
      const target = await npmStart.startNpmStartTarget({
        main: tollgateMain,
        env: tollgateEnv(),
        databaseUrl: opt.databaseUrl,
        redisPrefix: opt.redisPrefix,
        logsDir: LOGS,
        upstreamPort: upstream.port,
        port: await proc.freePort(),
        log,
        writeLua,
      });
      services.push(target.service);
      targets.push(target);
    } catch (error) {
      skipped.npmstart = error.message;
      log(`! npmstart is not measured: ${error.message}`);
    }
  }
  if (opt.targets.includes('split')) {
    try {
      await prepareTollgate();
      const target = await npmStart.startSplitTarget({
        main: tollgateMain,
        env: tollgateEnv(),
        databaseUrl: opt.databaseUrl,
        redisPrefix: opt.redisPrefix,
        logsDir: LOGS,
        upstreamPort: upstream.port,
        port: await proc.freePort(),
        log,
        writeLua,
      });
      services.push(...target.services);
      targets.push(target);
    } catch (error) {
      skipped.split = error.message;
      log(`! split is not measured: ${error.message}`);
    }
  }
  if (portkeyDir) {
    const service = await startPortkey(portkeyDir);
    services.push(service);
    log(`- Portkey ${PORTKEY_VERSION} on 127.0.0.1:${service.port} (pid ${service.pid})`);
    targets.push({ name: 'portkey', pid: service.pid, service, url: `http://127.0.0.1:${service.port}/v1/chat/completions` });
  }

  const headers = {
    Authorization: `Bearer ${relayKey}`,
    'x-portkey-provider': 'openai',
    'x-portkey-custom-host': `http://127.0.0.1:${upstream.port}/v1`,
  };
  const lua = writeLua(headers);
  const perRequestLua = writeLua(headers, { perRequest: true });

  for (const target of [...targets]) {
    try {
      await tollgate.smokeRelay(target.url, target.headers ?? headers, { attempts: target.name === 'portkey' ? 3 : 20 });
    } catch (error) {
      skipped[target.name] = error.message;
      targets.splice(targets.indexOf(target), 1);
      log(`! ${target.name} is not measured: ${error.message}`);
    }
  }
  if (!targets.length) throw new Error('no target answered');
  const names = targets.map((t) => t.name);
  log(
    `- targets: ${names.join(', ')}; ${opt.rounds} rounds, ${opt.duration} s per wrk phase, ${opt.ttfbCount} streams per TTFB round; order alternates`,
  );

  log(`- warm-up: ${opt.warmup} s per target`);
  for (const target of targets) await wrk(target.url, 50, opt.warmup, target.lua ?? lua);
  for (const target of targets) await client.measureTtfb(target.url, target.headers ?? headers, 20);

  const results = Object.fromEntries(
    names.map((name) => [name, { sat: [], seq: [], ttfb: [], ...(flags['one-cpu-loop'] ? { seq1: [] } : {}) }]),
  );
  const phases = [
    ['sat', 'saturation, wrk -t1 -c50, non-streaming', (t) => loadPhase(t, 50, t.lua ?? lua)],
    ['seq', 'concurrency 1, wrk -t1 -c1, non-streaming, every request timed', (t) => loadPhase(t, 1, t.perRequestLua ?? perRequestLua)],
    ...(flags['one-cpu-loop']
      ? [
          [
            'seq1',
            'concurrency 1 as above, with wrk, the fake upstream and the target on CPU 0 (Postgres, Redis, the projector free)',
            (t) => onOneCpu(t, () => loadPhase(t, 1, t.perRequestLua ?? perRequestLua, { cpus: '0' })),
          ],
        ]
      : []),
    ['ttfb', `streams at concurrency 1, time to first byte`, (t) => client.measureTtfb(t.url, t.headers ?? headers, opt.ttfbCount)],
  ];
  for (const [phase, title, measure] of phases) {
    log(`- ${phase}: ${title}`);
    for (let round = 0; round < opt.rounds; round++) {
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      for (const target of order) {
        const result = await measure(target);
        results[target.name][phase].push(result);
        describe(target.name, phase, result);
        await proc.sleep(1000);
      }
    }
  }

  let settlement = null;
  if (names.includes('tollgate')) {
    settlement = await tollgate.settlementCounts(opt.databaseUrl).catch((error) => ({ error: error.message }));
  }
  // After the log projection caught up (settlementCounts waits for it), before the database is dropped.
  let storage = null;
  if (names.includes('tollgate')) {
    storage = await tollgate.storagePerRequest(opt.databaseUrl).catch((error) => ({ error: error.message }));
  }

  const rss = Object.fromEntries(targets.filter((t) => t.pid).map((t) => [t.name, proc.rssMb(t.pid)]));
  const summary = report.summarize(results);
  log('');
  log(
    `Medians over ${opt.rounds} rounds (ms unless marked; +x = added vs direct in the same round; c=1 = percentiles of every request wrk made at concurrency 1, each timed; CPU of the gateway process (Tollgate: --role api,worker; npmstart and split: the api and worker processes); Proj = Tollgate's projector process; PG = its Postgres backends)`,
  );
  log(report.resultTable(summary));
  log('');
  for (const line of report.ratioLines(summary)) log(line);
  const [shape, started] = [summary.tollgate, summary.npmstart];
  if (shape && started) {
    const times = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? `${report.fmt(a / b)}x` : 'n/a');
    log(
      `npm start (supervisor: api, worker, projector children) vs the production shape (api,worker + projector): RPS ${times(started.rps, shape.rps)}, ` +
        `CPU per request ${times(started.cpuUs, shape.cpuUs)}, c=1 p50 ${report.fmt(started.seqP50, 3)} vs ${report.fmt(shape.seqP50, 3)} ms, ` +
        `p99 ${report.fmt(started.seqP99, 3)} vs ${report.fmt(shape.seqP99, 3)} ms`,
    );
  }
  for (const line of report.childSplitLines(results)) log(line);
  for (const line of report.wrkCorrectedLine(summary)) log(line);
  for (const line of report.oneCpuLoopLines(summary)) log(line);
  log(
    `RSS after load: ${
      Object.entries(rss)
        .map(([name, mb]) => `${name} ${report.fmt(mb, 0)} MB`)
        .join(', ') || '-'
    }`,
  );
  if (settlement) {
    const tollgateCount = results.tollgate
      ? [...results.tollgate.sat, ...results.tollgate.seq, ...(results.tollgate.seq1 ?? []), ...results.tollgate.ttfb].reduce(
          (sum, r) => sum + (r.requests ?? r.count ?? 0) - (r.non2xx ?? 0),
          0,
        )
      : 0;
    log(
      settlement.error
        ? `Ledger check failed: ${settlement.error}`
        : `Ledger: ${settlement.events.toLocaleString('en-US')} QuotaConsumed events and ${settlement.logs.toLocaleString('en-US')} consume log rows for ${tollgateCount.toLocaleString('en-US')} answers counted by the clients in the measured phases (warm-ups and requests cut off when wrk stops are charged too)${Number.isFinite(settlement.caughtUpMs) ? `; the log projection caught up ${settlement.caughtUpMs} ms after the load` : '; the log projection had NOT caught up 30 s after the load'}`,
    );
  }
  if (storage) log(storage.error ? `Storage check failed: ${storage.error}` : storageLine(storage));
  log('');
  log('Targets set for the relay:');
  const checks = report.checkTargets(summary);
  for (const line of report.targetLines(checks)) log(line);
  for (const [name, why] of Object.entries(skipped)) log(`  (${name} not measured: ${why.split('\n')[0].slice(0, 300)})`);

  let profile = null;
  const tollgateTarget = targets.find((t) => t.name === 'tollgate');
  if (flags.profile && tollgateTarget) profile = await profileMode(tollgateTarget, lua);

  const out = path.join(WORK, 'results', `bench-${stamp()}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify({ options: opt, results, summary, checks, rss, settlement, storage, skipped, profile }, null, 2));
  log('');
  log(`raw figures: ${path.relative(ROOT, out)}`);
}

// ---------------------------------------------------------------------------------------------------- --profile

async function profileMode(target, lua) {
  log('');
  log(
    `- profile: Tollgate restarted under node --cpu-prof for one wrk phase at c=${Math.max(1, Number(flags['profile-connections'] ?? 50))}`,
  );
  await target.service.stop();
  services.splice(services.indexOf(target.service), 1);
  const dir = path.join(WORK, 'profiles', stamp());
  fs.mkdirSync(dir, { recursive: true });
  const service = await startTollgate(
    ['-r', path.join(__dirname, 'lib', 'exit-on-signal.cjs'), '--cpu-prof', '--cpu-prof-dir', dir],
    'tollgate-profile',
  );
  services.push(service);
  const url = `http://127.0.0.1:${service.port}/v1/chat/completions`;
  const connections = Math.max(1, Number(flags['profile-connections'] ?? 50));
  await wrk(url, connections, opt.warmup, lua);
  const fromUs = Number(process.hrtime.bigint() / 1000n);
  const sched0 = proc.mainThreadSched(service.pid);
  const load = await wrk(url, connections, opt.duration, lua);
  const sched1 = proc.mainThreadSched(service.pid);
  const toUs = Number(process.hrtime.bigint() / 1000n);
  await service.stop();
  services.splice(services.indexOf(service), 1);
  const file = fs.readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) {
    log(`! no .cpuprofile was written in ${path.relative(ROOT, dir)}`);
    return null;
  }
  const summary = summarizeProfile(readProfile(path.join(dir, file)), { fromUs, toUs });
  log(
    `  ${report.fmtInt(load.rps)} rps under the profiler; ${report.fmt(summary.busyMs, 0)} ms busy, ${report.fmt(summary.idleMs, 0)} ms idle${summary.windowed ? ' in the saturation window' : ' (whole process: the window matched no sample)'}`,
  );
  const onCpuMs = (sched1.onCpuUs - sched0.onCpuUs) / 1000;
  const waitingMs = (sched1.waitingUs - sched0.waitingUs) / 1000;
  if (Number.isFinite(onCpuMs)) {
    log(
      `  main thread in the window (schedstat): ${report.fmt(onCpuMs, 0)} ms on a CPU, ${report.fmt(waitingMs, 0)} ms runnable and waiting for one; samples are wall time, so the waiting counts as busy below, on the frame where the thread was preempted (often a socket write that woke its reader)`,
    );
  }
  log('');
  log('Self time by part (share of busy CPU):');
  log(
    report.table(
      ['part', 'ms', 'share'],
      summary.categories.slice(0, 20).map((c) => [c.name, report.fmt(c.us / 1000, 0), `${report.fmt(c.share * 100, 1)}%`]),
    ),
  );
  log('');
  log('Busy CPU by the innermost Tollgate folder on the stack (who caused the work, packages and syscalls included):');
  log(
    report.table(
      ['Tollgate folder', 'ms', 'share'],
      summary.owners.slice(0, 20).map((c) => [c.name, report.fmt(c.us / 1000, 0), `${report.fmt(c.share * 100, 1)}%`]),
    ),
  );
  log('');
  log('Top self-time functions:');
  log(
    report.table(
      ['function', 'where', 'part', 'ms', 'share'],
      summary.functions
        .slice(0, 25)
        .map((f) => [
          f.name.slice(0, 40),
          f.where.slice(-70),
          f.category.slice(0, 30),
          report.fmt(f.us / 1000, 0),
          `${report.fmt(f.share * 100, 1)}%`,
        ]),
    ),
  );
  log(`profile: ${path.relative(ROOT, path.join(dir, file))} (open in Chrome DevTools > Performance, or speedscope)`);
  return {
    file: path.relative(ROOT, path.join(dir, file)),
    rps: load.rps,
    categories: summary.categories.slice(0, 30),
    owners: summary.owners.slice(0, 30),
    functions: summary.functions.slice(0, 50),
  };
}

// ---------------------------------------------------------------------------------------------------- --streams

async function streamsMode() {
  const chunks = Math.max(1, Math.round((opt.streamSeconds * 1000) / opt.chunkMs));
  upstream = await startUpstream(['--chunks', String(chunks), '--chunk-ms', String(opt.chunkMs)], 'fake-upstream-paced');
  services.push(upstream);
  log(
    `- paced fake upstream on 127.0.0.1:${upstream.port}: ${chunks + 4} events, one per ${opt.chunkMs} ms (~${opt.streamSeconds} s per stream)`,
  );

  let target;
  let key = 'sk-bench-no-tollgate-key-000000000000000000000000000';
  if (opt.streamTarget === 'portkey') {
    const service = await startPortkey(ensurePortkey());
    services.push(service);
    target = { name: 'portkey', service };
  } else if (opt.streamTarget === 'tollgate') {
    await prepareTollgate();
    const service = await startTollgate();
    services.push(service);
    ({ key } = await tollgate.setUpThroughApi({ port: service.port, upstreamPort: upstream.port, log }));
    target = { name: 'tollgate', service };
  } else {
    throw new Error(`--target must be tollgate or portkey, not ${opt.streamTarget}`);
  }
  const pid = target.service.pid;
  const url = `http://127.0.0.1:${target.service.port}/v1/chat/completions`;
  const headers = {
    Authorization: `Bearer ${key}`,
    'x-portkey-provider': 'openai',
    'x-portkey-custom-host': `http://127.0.0.1:${upstream.port}/v1`,
  };
  log(`- ${target.name} on 127.0.0.1:${target.service.port} (pid ${pid})`);

  // Warm the path (lazy modules, pools, caches) with non-streamed requests and a few short streams.
  await tollgate.smokeRelay(url, headers, { attempts: 20 }).catch((error) => {
    // A paced stream outlasts no timeout here, so a failure is the relay's answer.
    throw new Error(`${target.name}: ${error.message}`);
  });
  const warm = client.holdStreams(url, headers, 20);
  await warm.done;
  await proc.sleep(5000);
  const samples = [];
  const sampleRss = () => proc.rssMb(pid);
  const before = median([sampleRss(), (await proc.sleep(1000), sampleRss()), (await proc.sleep(1000), sampleRss())]);
  log(`- RSS before: ${report.fmt(before, 1)} MB; opening ${opt.streamCount} concurrent streams`);

  // Each wave: opt.streamCount streams at once, then opt.settle seconds idle. A second wave tells retention (the
  // process keeps what the first wave made it grow to, and reuses it) from a leak (it grows again by as much).
  const waves = [];
  const started = Date.now();
  let state;
  for (let wave = 1; wave <= opt.waves; wave++) {
    if (opt.waves > 1) log(`- wave ${wave} of ${opt.waves}`);
    const hold = client.holdStreams(url, headers, opt.streamCount, { timeoutMs: (opt.streamSeconds + 120) * 1000 });
    let peak = wave === 1 ? before : waves[wave - 2].after;
    let finished = false;
    hold.done.then(() => (finished = true));
    while (!finished) {
      await proc.sleep(1000);
      const mb = sampleRss();
      samples.push({ wave, s: (Date.now() - started) / 1000, mb, open: hold.state.open });
      if (mb > peak) peak = mb;
      const second = Math.round((Date.now() - started) / 1000);
      if (second % 5 === 0)
        log(
          `    t=${String(second).padStart(3)} s  open ${String(hold.state.open).padStart(5)}  done ${hold.state.done}  failed ${hold.state.failed}  RSS ${report.fmt(mb, 1)} MB`,
        );
    }
    state = await hold.done;
    log(
      `- all streams ended after ${report.fmt(state.seconds, 1)} s: ${state.done} completed, ${state.failed} failed${state.lastError ? ` (last: ${state.lastError.slice(0, 200)})` : ''}; at most ${state.maxOpen} open at once`,
    );
    log(`  first byte: p50 ${report.fmt(median(state.firstByteMs), 1)} ms, max ${report.fmt(Math.max(...state.firstByteMs), 1)} ms`);
    log(`- settling ${opt.settle} s for GC`);
    for (let waited = 0; waited < opt.settle; waited += 1) {
      await proc.sleep(1000);
      samples.push({ wave, s: (Date.now() - started) / 1000, mb: sampleRss(), open: 0 });
    }
    waves.push({ wave, peak, after: sampleRss(), failed: state.failed, maxOpen: state.maxOpen });
  }
  // The targets judge the first wave (growth from the baseline, and how far it came back); later waves are printed.
  const { peak, after } = waves[0];
  log('');
  const rows = [['before', report.fmt(before, 1)]];
  for (const w of waves) {
    const label = opt.waves > 1 ? ` (wave ${w.wave})` : '';
    rows.push([`peak during${label}`, report.fmt(w.peak, 1)], [`after settle${label}`, report.fmt(w.after, 1)]);
  }
  log(report.table(['RSS', 'MB'], rows));
  if (opt.waves > 1) {
    const last = waves[waves.length - 1];
    log(
      `  after the last wave vs after the first: ${last.after - after >= 0 ? '+' : ''}${report.fmt(last.after - after, 1)} MB over ${opt.waves - 1} more wave(s)`,
    );
  }
  log('');
  log(`Targets set for the relay, ${target.name}:`);
  const failed = waves.reduce((sum, w) => sum + w.failed, 0);
  const checks = report.checkStreamTargets({
    before,
    peak,
    after,
    failed,
    count: opt.streamCount,
    maxOpen: Math.min(...waves.map((w) => w.maxOpen)),
  });
  for (const line of report.targetLines(checks)) log(line);
  const out = path.join(WORK, 'results', `streams-${stamp()}.json`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const { firstByteMs: _firstByteMs, ...counts } = state;
  fs.writeFileSync(
    out,
    JSON.stringify({ options: opt, target: target.name, before, peak, after, waves, counts, checks, samples }, null, 2),
  );
  log('');
  log(`raw figures: ${path.relative(ROOT, out)}`);
}

// ---------------------------------------------------------------------------------------------------- --serve

async function serveMode() {
  upstream = await startUpstream();
  services.push(upstream);
  await prepareTollgate();
  const service = await startTollgate();
  services.push(service);
  const { key } = await tollgate.setUpThroughApi({ port: service.port, upstreamPort: upstream.port, log });
  const url = `http://127.0.0.1:${service.port}/v1/chat/completions`;
  const headers = { Authorization: `Bearer ${key}` };
  await tollgate.smokeRelay(url, headers, { attempts: 20 });
  const lua = writeLua(headers);
  const perRequestLua = writeLua(headers, { perRequest: true });
  log(`- serving: ${url}`);
  log(`  key ${key}`);
  log(
    `  pids: tollgate ${service.pid}, projector ${projector.pid}, fake upstream ${upstream.pid} (direct: http://127.0.0.1:${upstream.port}/v1/chat/completions)`,
  );
  log(`  try: wrk -t1 -c50 -d10s --latency -s ${path.relative(ROOT, lua)} ${url}`);
  log(`  c=1, every request timed (prints the list): wrk -t1 -c1 -d10s --latency -s ${path.relative(ROOT, perRequestLua)} ${url}`);
  log('  Ctrl-C stops everything');
  await new Promise(() => undefined);
}

// ---------------------------------------------------------------------------------------------------- main

async function cleanUp() {
  await proc.stopAll();
  if (tollgateMain) {
    for (const prefix of [opt.redisPrefix, `${opt.redisPrefix}-start`, `${opt.redisPrefix}-split`]) {
      await tollgate
        .dropRedisPrefix(opt.redisUrl, prefix)
        .catch((error) => log(`! could not clear Redis prefix ${prefix}: ${error.message}`));
    }
    for (const databaseUrl of flags['keep-db']
      ? []
      : [opt.databaseUrl, npmStart.startDatabaseUrl(opt.databaseUrl), npmStart.splitDatabaseUrl(opt.databaseUrl)]) {
      const { Client } = require(path.join(ROOT, 'node_modules', 'pg'));
      const url = new URL(databaseUrl);
      const name = decodeURIComponent(url.pathname.slice(1));
      url.pathname = '/postgres';
      const pg = new Client({ connectionString: url.toString() });
      await pg
        .connect()
        .then(() => pg.query(`DROP DATABASE IF EXISTS "${name.replace(/"/g, '""')}" WITH (FORCE)`))
        .catch((error) => log(`! could not drop ${name}: ${error.message}`))
        .finally(() => pg.end().catch(() => undefined));
    }
  }
}

let interrupted = false;
process.on('SIGINT', () => {
  if (interrupted) process.exit(130);
  interrupted = true;
  log('\n! interrupted: stopping the services this run started');
  cleanUp().finally(() => process.exit(130));
});

(async () => {
  fs.mkdirSync(LOGS, { recursive: true });
  log(
    `Tollgate benchmark (${flags.streams ? 'slow streams' : flags.serve ? 'serve' : 'throughput and latency'}${quick ? ', quick' : ''}); logs in ${path.relative(ROOT, LOGS)}`,
  );
  try {
    if (flags.streams) await streamsMode();
    else if (flags.serve) await serveMode();
    else await benchmarkMode();
  } finally {
    await cleanUp();
  }
})().catch((error) => {
  log(`\nbenchmark failed: ${error.stack || error.message}`);
  process.exit(1);
});
