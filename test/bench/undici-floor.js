'use strict';
/**
 * The floor of a Node proxy on this machine, and what the upstream client's design costs there:
 *
 *   node test/bench/undici-floor.js [--seconds 4] [--rounds 2]
 *
 * Starts the benchmark's zero-latency fake upstream and a bare Node `http` proxy (read the body, call the upstream,
 * answer its bytes) in two variants, alternating: `request` (undici.request() with an AbortSignal, what the relay
 * used before) and `dispatch` (Agent.dispatch with a handler of its own, what UpstreamHttpClient does now). Each is
 * loaded with `wrk -t1 -c50` and its CPU per request read from /proc. Prints one line per round and variant.
 */
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { parseFlags } = require('./lib/flags');

const ROOT = path.resolve(__dirname, '..', '..');

if (process.argv[2] === '--proxy') {
  // Child: the proxy itself.
  const http = require('node:http');
  const { Agent, request } = require(path.join(ROOT, 'node_modules', 'undici'));
  const [, , , upstream, mode] = process.argv;
  const origin = new URL(upstream).origin;
  const agent = new Agent({ connections: 4096, pipelining: 1, keepAliveTimeout: 30_000 });
  const headers = { 'content-type': 'application/json', authorization: 'Bearer x' };
  const viaDispatch = (body) =>
    new Promise((resolve, reject) => {
      const chunks = [];
      agent.dispatch(
        { origin, path: '/v1/chat/completions', method: 'POST', headers, body },
        {
          onRequestStart() {},
          onResponseStart() {},
          onResponseData(_controller, chunk) {
            chunks.push(chunk);
          },
          onResponseEnd() {
            resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
          },
          onResponseError(_controller, error) {
            reject(error);
          },
        },
      );
    });
  const viaRequest = async (body) => {
    const answer = await request(`${origin}/v1/chat/completions`, {
      dispatcher: agent,
      method: 'POST',
      headers,
      body,
      signal: new AbortController().signal,
    });
    return Buffer.from(await answer.body.arrayBuffer());
  };
  const call = mode === 'dispatch' ? viaDispatch : viaRequest;
  const server = http.createServer((req, res) => {
    const parts = [];
    req.on('data', (part) => parts.push(part));
    req.on('end', async () => {
      const answer = await call(parts.length === 1 ? parts[0] : Buffer.concat(parts));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length });
      res.end(answer);
    });
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`ready ${server.address().port}\n`));
  return;
}

function start(args) {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (data) => {
      const match = /ready (\d+)/.exec(String(data));
      if (match) resolve({ child, port: Number(match[1]) });
    });
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}`)));
  });
}

const cpuTicks = (pid) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
};

(async () => {
  const flags = parseFlags(process.argv.slice(2), { seconds: 4, rounds: 2 });
  const lua = path.join(require('node:os').tmpdir(), 'tollgate-undici-floor.lua');
  fs.writeFileSync(
    lua,
    `wrk.method = "POST"\nwrk.body = '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hello"}]}'\nwrk.headers["Content-Type"] = "application/json"\n`,
  );
  const upstream = await start([path.join(__dirname, 'lib', 'fake-upstream.js'), '--port', '0']);
  try {
    for (let round = 1; round <= Number(flags.rounds); round++) {
      const order = round % 2 ? ['request', 'dispatch'] : ['dispatch', 'request'];
      for (const mode of order) {
        const proxy = await start([__filename, '--proxy', `http://127.0.0.1:${upstream.port}`, mode]);
        const url = `http://127.0.0.1:${proxy.port}/v1/chat/completions`;
        execFileSync('wrk', ['-t1', '-c50', '-d1s', '-s', lua, url]);
        const before = cpuTicks(proxy.child.pid);
        const out = execFileSync('wrk', ['-t1', '-c50', `-d${flags.seconds}s`, '-s', lua, url], { encoding: 'utf8' });
        const ticks = cpuTicks(proxy.child.pid) - before;
        const requests = Number(/(\d+) requests in/.exec(out)[1]);
        const rps = /Requests\/sec:\s+([\d.]+)/.exec(out)[1];
        console.log(
          `round ${round}  ${mode.padEnd(8)}  ${Number(rps).toFixed(0).padStart(6)} rps  ${((ticks * 10_000) / requests).toFixed(0).padStart(4)} us CPU/request`,
        );
        proxy.child.kill();
      }
    }
  } finally {
    upstream.child.kill();
  }
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
