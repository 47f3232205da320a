'use strict';
/** Checks of the benchmark's pure helpers: `node --test test/bench/lib/` (jest ignores test/bench/). */
const test = require('node:test');
const assert = require('node:assert/strict');
const { percentile, median, durationMs, parseWrk, PER_REQUEST_MARK, cpuTicksFromStat, rssMbFromStatus } = require('./stats');
const { summarize, checkTargets, checkStreamTargets, wrkCorrectedLine, oneCpuLoopLines, childSplitLines } = require('./report');
const { summarizeProfile, category } = require('./profile');
const { parseFlags } = require('./flags');
const { bytesPerRequest, storageLine, SIZE_SQL } = require('./storage');

const WRK = `Running 3s test @ http://127.0.0.1:4000/v1/chat/completions
  1 threads and 50 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.21ms  600.00us  20.10ms   90.00%
    Req/Sec    40.1k     2.0k    45.0k    70.00%
  Latency Distribution
     50%  845.00us
     75%    1.30ms
     90%    2.10ms
     99%    1.02s
  120345 requests in 3.00s, 70.11MB read
  Non-2xx or 3xx responses: 7
  Socket errors: connect 0, read 2, write 0, timeout 3
Requests/sec:  40115.00
Transfer/sec:     23.37MB
`;

test('wrk output: requests, RPS, percentiles in ms, errors', () => {
  const r = parseWrk(WRK);
  assert.equal(r.requests, 120345);
  assert.equal(r.seconds, 3);
  assert.equal(r.rps, 40115);
  assert.equal(r.p50, 0.845);
  assert.equal(r.p90, 2.1);
  assert.equal(r.p99, 1020);
  assert.equal(r.non2xx, 7);
  assert.equal(r.socketErrors, 5);
});

test('wrk output without a summary is an error, not a zero', () => {
  assert.throws(() => parseWrk('unable to connect to 127.0.0.1:1 Connection refused\n'), /no summary/);
});

test("wrk output with the per-request line: percentiles of the timed requests, wrk's corrected ones kept beside", () => {
  // 100 requests: 98 at 300 us, one at 2 ms, one at 12 ms. wrk's corrected p99 (printed) counts made-up samples.
  const timed = [...Array(98).fill('300.0'), '2000.0', '12000.0'].join(',');
  const r = parseWrk(WRK.replace('Requests/sec', `${PER_REQUEST_MARK} ${timed}\nRequests/sec`));
  const { perRequest, p50, p90, p99, wrkP50, wrkP99, requests } = r;
  assert.deepEqual(
    { perRequest, p50, p90, p99, wrkP50, wrkP99, requests },
    { perRequest: 100, p50: 0.3, p90: 0.3, p99: 2, wrkP50: 0.845, wrkP99: 1020, requests: 120345 },
  );
  assert.throws(() => parseWrk(WRK.replace('Requests/sec', `${PER_REQUEST_MARK} \nRequests/sec`)), /no latencies/);
  assert.throws(() => parseWrk(WRK.replace('Requests/sec', `${PER_REQUEST_MARK} 1.0,x\nRequests/sec`)), /no latencies/);
  // Without the line, wrk's own percentiles and no per-request fields.
  const plain = parseWrk(WRK);
  assert.equal(plain.perRequest, undefined);
  assert.equal(plain.wrkP99, undefined);
});

test('the per-request wrk script runs under wrk and its line parses', { skip: !hasWrk() && 'wrk is not installed' }, async () => {
  const http = require('node:http');
  const { execFile } = require('node:child_process');
  const fs = require('node:fs');
  const os = require('node:os');
  const path = require('node:path');
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('{"ok":true}'));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-lua-'));
  try {
    const lua = path.join(dir, 'post.lua');
    fs.writeFileSync(lua, `wrk.method = "POST"\nwrk.body = "{}"\n${require('./per-request-lua').PER_REQUEST_LUA}\n`);
    const out = await new Promise((resolve, reject) =>
      execFile('wrk', ['-t1', '-c1', '-d1s', '--latency', '-s', lua, `http://127.0.0.1:${server.address().port}/`], (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      ),
    );
    const r = parseWrk(out);
    assert.ok(r.perRequest > 100, `timed ${r.perRequest} requests`);
    assert.ok(Math.abs(r.perRequest - r.requests) <= 1, `${r.perRequest} timed of ${r.requests}`);
    assert.ok(r.p50 > 0 && r.p50 <= r.p99, `p50 ${r.p50} p99 ${r.p99}`);
  } finally {
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('durations, percentiles and medians', () => {
  assert.equal(durationMs('250.5us'), 0.2505);
  assert.equal(durationMs('2m'), 120000);
  assert.throws(() => durationMs('fast'));
  assert.equal(percentile([5, 1, 4, 2, 3], 50), 3);
  assert.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 99), 10);
  assert.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90), 9);
  assert.ok(Number.isNaN(percentile([], 50)));
  assert.equal(median([3, 1, NaN, 2]), 2);
  assert.equal(median([4, 1, 2, 3]), 2.5);
});

test('/proc readings: utime+stime past a command name with spaces, VmRSS in MB', () => {
  const stat = '4242 (node (main) x) S 1 4242 4242 0 -1 4194560 9000 0 0 0 1234 567 0 0 20 0 11 0 100 1000000 30000';
  assert.equal(cpuTicksFromStat(stat), 1234 + 567);
  assert.equal(rssMbFromStatus('Name:\tnode\nVmRSS:\t  102400 kB\nThreads:\t11\n'), 100);
});

test('summary: medians over rounds and added latency against direct of the same round', () => {
  const results = {
    direct: {
      sat: [{ rps: 30000 }, { rps: 20000 }, { rps: 25000 }],
      seq: [
        { p50: 0.05, p99: 0.2 },
        { p50: 0.1, p99: 0.4 },
        { p50: 0.07, p99: 0.3 },
      ],
      ttfb: [{ ttfbP50: 0.2, ttfbP99: 1 }],
    },
    tollgate: {
      sat: [
        { rps: 6000, cpuUs: 140, projectorUs: 90 },
        { rps: 5000, cpuUs: 160, projectorUs: 70 },
        { rps: 5500, cpuUs: 150, projectorUs: 80 },
      ],
      seq: [
        { p50: 0.25, p99: 0.9 },
        { p50: 0.5, p99: 1.5 },
        { p50: 0.3, p99: 1.0 },
      ],
      ttfb: [{ ttfbP50: 0.6, ttfbP99: 2 }],
    },
    portkey: {
      sat: [
        { rps: 1000, cpuUs: 1000 },
        { rps: 1100, cpuUs: 900 },
        { rps: 900, cpuUs: 1100 },
      ],
      seq: [{ p50: 1, p99: 8 }],
      ttfb: [{ ttfbP50: 27, ttfbP99: 30 }],
    },
  };
  const s = summarize(results);
  assert.equal(s.direct.rps, 25000);
  assert.equal(s.tollgate.rps, 5500);
  assert.equal(s.tollgate.cpuUs, 150);
  assert.equal(s.tollgate.projectorUs, 80);
  assert.ok(Number.isNaN(s.portkey.projectorUs));
  // per round: 0.20, 0.40, 0.23 -> median 0.23
  assert.ok(Math.abs(s.tollgate.addedP50 - 0.23) < 1e-9);
  assert.ok(Math.abs(s.tollgate.addedTtfbP50 - 0.4) < 1e-9);
  assert.ok(Number.isNaN(s.direct.addedP50));
  const checks = Object.fromEntries(checkTargets(s).map((c) => [c.name, c.ok]));
  assert.equal(checks['CPU per non-streaming request'], true); // 150 <= 150
  assert.equal(checks['RPS vs Portkey (c=50)'], true); // 5500 / 1000 = 5.5
  assert.equal(checks['added p50 at c=1'], true);
  assert.equal(checks['added stream TTFB (p50, c=1)'], true);
  assert.deepEqual(wrkCorrectedLine(s), []);
  const withWrk = summarize({
    direct: { sat: [], seq: [{ p50: 0.09, p99: 0.16, wrkP99: 0.3 }], ttfb: [] },
    tollgate: { sat: [], seq: [{ p50: 0.35, p99: 2.3, wrkP99: 6.3 }], ttfb: [] },
  });
  assert.ok(Math.abs(withWrk.tollgate.addedP99 - 2.14) < 1e-9);
  assert.ok(Math.abs(withWrk.tollgate.addedWrkP99 - 6) < 1e-9);
  assert.match(wrkCorrectedLine(withWrk)[0], /direct 0\.300, tollgate 6\.300 \(\+6\.000\) ms/);
});

test('--one-cpu-loop: its own medians and added figures, printed beside and never judged', () => {
  const results = {
    direct: {
      sat: [],
      seq: [{ p50: 0.09, p99: 0.16 }],
      seq1: [
        { p50: 0.02, p99: 0.05 },
        { p50: 0.03, p99: 0.07 },
      ],
      ttfb: [],
    },
    tollgate: {
      sat: [],
      seq: [{ p50: 0.3, p99: 2.2 }],
      seq1: [
        { p50: 0.13, p99: 0.65 },
        { p50: 0.15, p99: 0.61 },
      ],
      ttfb: [],
    },
  };
  const s = summarize(results);
  assert.ok(Math.abs(s.tollgate.oneCpuAddedP99 - 0.57) < 1e-9); // rounds: 0.60 and 0.54
  assert.ok(Math.abs(s.tollgate.oneCpuP50 - 0.14) < 1e-9);
  assert.match(oneCpuLoopLines(s)[0], /direct 0\.025 \/ 0\.060, tollgate 0\.140 \/ 0\.630 \(\+0\.115 \/ \+0\.570\)/);
  // The judged c=1 p99 is still the phase as deployed.
  assert.ok(Math.abs(s.tollgate.addedP99 - 2.04) < 1e-9);
  assert.equal(checkTargets(s).find((c) => c.name === 'added p99 at c=1')?.ok, false);
  // Without the flag there is no such phase and no line.
  assert.deepEqual(oneCpuLoopLines(summarize({ direct: { sat: [], seq: [], ttfb: [] } })), []);
});

test('npmstart CPU split: per process the median over rounds, per phase, and the sum of those medians', () => {
  const results = {
    tollgate: { sat: [{ cpuUs: 150 }], seq: [{ cpuUs: 300 }], ttfb: [] },
    npmstart: {
      sat: [
        { childUs: { api: 160, worker: 2, projector: 80, supervisor: 1 } },
        { childUs: { api: 180, worker: 4, projector: 70, supervisor: 3 } },
        { childUs: { api: 170, worker: 3, projector: 90, supervisor: 2 } },
      ],
      // A process that had gone (NaN) is left out of its median, not counted as zero.
      seq: [
        { childUs: { api: 310, worker: 6, projector: 130, supervisor: NaN } },
        { childUs: { api: 330, worker: 8, projector: 150, supervisor: 4 } },
      ],
      ttfb: [],
    },
  };
  assert.deepEqual(childSplitLines(results), [
    'npmstart CPU us/req by process (medians over rounds): c=50 api 170, worker 3, projector 80, supervisor 2 (sum of medians 255); ' +
      'c=1 api 320, worker 7, projector 140, supervisor 4 (sum of medians 471)',
  ]);
  // Targets of one process have no split and no line.
  assert.deepEqual(childSplitLines({ tollgate: results.tollgate }), []);
});

test('targets without a Tollgate figure are n/a, never PASS', () => {
  const checks = checkTargets(summarize({ direct: { sat: [{ rps: 1 }], seq: [], ttfb: [] } }));
  assert.ok(checks.every((c) => c.ok === undefined));
});

test('slow-stream verdicts: all open at once, growth at the peak, return to baseline, failures', () => {
  const ok = checkStreamTargets({ before: 120, peak: 230, after: 130, failed: 0, count: 1000, maxOpen: 1000 });
  assert.deepEqual(
    ok.map((c) => c.ok),
    [true, true, true, true],
  );
  const bad = checkStreamTargets({ before: 120, peak: 300, after: 200, failed: 3, count: 1000, maxOpen: 1000 });
  assert.deepEqual(
    bad.map((c) => c.ok),
    [true, false, false, false],
  );
  // Streams queued behind a 256-connection pool: small growth proves nothing, so it is not judged.
  const queued = checkStreamTargets({ before: 120, peak: 150, after: 125, failed: 0, count: 1000, maxOpen: 256 });
  assert.deepEqual(
    queued.map((c) => c.ok),
    [false, undefined, true, true],
  );
});

test('profile: self time by function and part, limited to the window', () => {
  const profile = {
    nodes: [
      { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 } },
      { id: 2, callFrame: { functionName: 'decide', url: 'file:///r/dist/server/src/relay/pipeline/x.js', lineNumber: 9 } },
      { id: 3, callFrame: { functionName: 'request', url: 'file:///r/node_modules/undici/lib/api.js', lineNumber: 0 } },
      { id: 4, callFrame: { functionName: '(garbage collector)', url: '', lineNumber: -1 } },
      { id: 5, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
    ],
    startTime: 1000,
    samples: [2, 2, 3, 4, 5, 2],
    timeDeltas: [0, 100, 100, 100, 100, 100],
  };
  profile.nodes[0].children = [2];
  profile.nodes[1].children = [3, 4];
  profile.nodes[0].children.push(5);
  const all = summarizeProfile(profile);
  // undici's and GC's time under the relay frame is charged to the relay folder; idle is not busy time.
  assert.deepEqual(
    all.owners.map((o) => [o.name, o.us]),
    [['server/src/relay/pipeline', 400]],
  );
  assert.equal(all.busyMs, 0.4);
  assert.equal(all.idleMs, 0.1);
  assert.equal(all.functions[0].name, 'decide');
  assert.equal(all.functions[0].category, 'server/src/relay/pipeline');
  const windowed = summarizeProfile(profile, { fromUs: 1150, toUs: 1400 });
  assert.equal(windowed.windowed, true);
  assert.deepEqual(windowed.categories.map((c) => c.name).sort(), ['GC', 'undici']);
  assert.equal(summarizeProfile(profile, { fromUs: 9e9, toUs: 9e9 + 1 }).windowed, false);
  assert.equal(category('node:internal/streams/readable', 'x'), 'node:streams');
  assert.equal(category('file:///x/node_modules/@nestjs/core/router.js', 'y'), '@nestjs/core');
});

test('flags: values, = form and switches', () => {
  assert.deepEqual(parseFlags(['--quick', '--rounds', '2', '--targets=direct,portkey', '--no-build'], { rounds: 3 }), {
    quick: true,
    rounds: '2',
    targets: 'direct,portkey',
    'no-build': true,
  });
});

function hasWrk() {
  try {
    require('node:child_process').execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    // wrk --version exits 1 after printing; only a missing binary is ENOENT.
    return error.code !== 'ENOENT';
  }
}

test('pinProcess: every thread of a process onto the CPUs given, and back; a clear error otherwise', async (t) => {
  const { spawn } = require('node:child_process');
  const fs = require('node:fs');
  const { pinProcess, cpusOf } = require('./proc');
  const child = spawn(process.execPath, ['-e', 'console.log("up"); setTimeout(() => {}, 20000)'], { stdio: ['ignore', 'pipe', 'ignore'] });
  t.after(() => child.kill('SIGKILL'));
  await new Promise((resolve) => child.stdout.once('data', resolve)); // its threads are started
  const allowed = () =>
    fs
      .readdirSync(`/proc/${child.pid}/task`)
      .map((tid) => /Cpus_allowed_list:\s*(\S+)/.exec(fs.readFileSync(`/proc/${child.pid}/task/${tid}/status`, 'utf8'))[1]);
  const original = cpusOf(child.pid);
  pinProcess(child.pid, '0');
  assert.equal(cpusOf(child.pid), '0');
  const pinned = allowed();
  assert.ok(pinned.length > 1, 'a Node process has several threads');
  assert.deepEqual([...new Set(pinned)], ['0']);
  pinProcess(child.pid, original);
  assert.equal(cpusOf(child.pid), original);
  assert.deepEqual([...new Set(allowed())], [original], 'every thread, not only the main one, gets its CPUs back');
  assert.throws(() => pinProcess(2 ** 22 + 12345, '0'), /could not set the CPUs of pid \d+ to 0: /);
});

test('storage per relayed request: heap + TOAST as the table, indexes apart, all-in summed, divided by the charges', () => {
  const r = bytesPerRequest(
    { events: { heap: '8192000', toast: '16384', indexes: '2048000' }, logs: { heap: 4096000, toast: 0, indexes: 1024000 } },
    20000,
  );
  assert.equal(r.requests, 20000);
  assert.equal(r.tables.events.table, (8192000 + 16384) / 20000);
  assert.equal(r.tables.events.indexes, 102.4);
  assert.equal(r.tables.events.total, (8192000 + 16384 + 2048000) / 20000);
  assert.deepEqual(r.tables.logs, { table: 204.8, indexes: 51.2, total: 256, bytes: { heap: 4096000, toast: 0, indexes: 1024000 } });
  assert.equal(r.allIn, (8192000 + 16384 + 2048000 + 4096000 + 1024000) / 20000);
  assert.match(storageLine(r), /events 513 B \(table 410 \+ indexes 102\), logs 256 B \(table 205 \+ indexes 51\); all-in 769 B$/);
});

test('storage per relayed request: statement_lines reported beside the all-in figure, not in it', () => {
  const sizes = { events: { heap: 2000, toast: 0, indexes: 1000 }, statement_lines: { heap: 4000, toast: 0, indexes: 2000 } };
  const r = bytesPerRequest(sizes, 10);
  assert.equal(r.allIn, 300);
  assert.equal(r.tables.statement_lines.total, 600);
  assert.match(
    storageLine(r),
    /events 300 B \(table 200 \+ indexes 100\); all-in 300 B; besides: statement_lines 600 B \(table 400 \+ indexes 200\)$/,
  );
});

test('storage per relayed request with no charge is n/a, not a division by zero', () => {
  const r = bytesPerRequest({ events: { heap: 8192, toast: 0, indexes: 16384 } }, 0);
  assert.ok(Number.isNaN(r.allIn));
  assert.ok(Number.isNaN(r.tables.events.total));
  assert.match(storageLine(r), /events n\/a B .* all-in n\/a B$/);
});

test('storage sizes sum the leaf partitions of a table (a partitioned logs table has no heap of its own)', () => {
  assert.match(SIZE_SQL, /pg_partition_tree\(\$1::regclass\)/);
  assert.match(SIZE_SQL, /WHERE t\.isleaf/);
  assert.match(SIZE_SQL, /relkind = 'r'/); // and a plain table is itself
});
