'use strict';
/**
 * Zero-latency fake OpenAI upstream for the benchmark (a fixture, never product code).
 *
 *   node test/bench/lib/fake-upstream.js [--port 0] [--chunks 20] [--chunk-ms 0]
 *
 * POST …/chat/completions answers a fixed `chat.completion` (with usage) at once, or with `"stream": true` an SSE
 * stream: a role chunk, `--chunks` content deltas, a finish chunk, a usage chunk (choices: []) and `[DONE]`. With
 * `--chunk-ms N` every event after the first waits N ms (the slow-stream mode). GET /v1/models lists one model
 * (channel set-up may ask for it). Prints `ready <port>` on stdout once listening on 127.0.0.1.
 */
const http = require('node:http');
const { parseFlags } = require('./flags');

const flags = parseFlags(process.argv.slice(2), { port: 0, chunks: 20, 'chunk-ms': 0 });
const CHUNKS = Number(flags.chunks);
const CHUNK_MS = Number(flags['chunk-ms']);
const MODEL = 'gpt-4o-mini-2024-07-18';
const ID = 'chatcmpl-benchfake0001';

const completion = Buffer.from(
  JSON.stringify({
    id: ID,
    object: 'chat.completion',
    created: 1700000000,
    model: MODEL,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: 'Hello! This is a fixed reply from the fake upstream. It is about as long as a short real answer.',
          refusal: null,
        },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: { prompt_tokens: 12, completion_tokens: 24, total_tokens: 36 },
    system_fingerprint: 'fp_bench',
  }),
);

const event = (payload) => Buffer.from(`data: ${JSON.stringify(payload)}\n\n`);
const chunk = (delta, finish) =>
  event({
    id: ID,
    object: 'chat.completion.chunk',
    created: 1700000000,
    model: MODEL,
    system_fingerprint: 'fp_bench',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
const sse = [chunk({ role: 'assistant', content: '' }, null)];
for (let i = 0; i < CHUNKS; i++) sse.push(chunk({ content: `tok${i} ` }, null));
sse.push(chunk({}, 'stop'));
sse.push(
  event({
    id: ID,
    object: 'chat.completion.chunk',
    created: 1700000000,
    model: MODEL,
    choices: [],
    usage: { prompt_tokens: 12, completion_tokens: CHUNKS, total_tokens: 12 + CHUNKS },
  }),
);
sse.push(Buffer.from('data: [DONE]\n\n'));
const sseWhole = Buffer.concat(sse);
const models = Buffer.from(
  JSON.stringify({ object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model', created: 1700000000, owned_by: 'openai' }] }),
);

function streamPaced(res) {
  let next = 0;
  const send = () => {
    if (res.destroyed) return;
    res.write(sse[next++]);
    if (next >= sse.length) return void res.end();
    setTimeout(send, CHUNK_MS);
  };
  send();
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url.endsWith('/models')) {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': models.length });
    return void res.end(models);
  }
  if (req.method !== 'POST' || !req.url.split('?')[0].endsWith('/chat/completions')) {
    res.writeHead(404, { 'content-type': 'application/json' });
    return void res.end('{"error":{"message":"not found","type":"invalid_request_error"}}');
  }
  const parts = [];
  req.on('data', (part) => parts.push(part));
  req.on('end', () => {
    let body = {};
    try {
      body = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}');
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      return void res.end('{"error":{"message":"bad json","type":"invalid_request_error"}}');
    }
    if (body.stream === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      if (CHUNK_MS > 0) return streamPaced(res);
      return void res.end(sseWhole);
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': completion.length });
    res.end(completion);
  });
});
server.keepAliveTimeout = 65_000;
server.headersTimeout = 70_000;
server.maxConnections = 100_000;
server.listen(Number(flags.port), '127.0.0.1', () => {
  process.stdout.write(`ready ${server.address().port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
