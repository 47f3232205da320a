'use strict';
/** HTTP clients of the benchmark: JSON calls for set-up, the c=1 stream TTFB probe, and the slow-stream holder. */
const http = require('node:http');
const { percentile } = require('./stats');

const BODY = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello, how are you today?' }] };
const STREAM_BODY = { ...BODY, stream: true };

/** One request; resolves { status, headers, text, json }. `body` objects are sent as JSON. */
function request(url, { method = 'GET', headers = {}, body, agent = false, timeoutMs = 30_000 } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const req = http.request(
      url,
      {
        method,
        agent,
        timeout: timeoutMs,
        headers: { ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}), ...headers },
      },
      (res) => {
        const parts = [];
        res.on('data', (part) => parts.push(part));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          let json;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout after ${timeoutMs} ms: ${method} ${url}`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Sequential streamed requests on one keep-alive connection (concurrency 1). For each: the time from sending to the
 * first body byte (TTFB) and to the end of the stream. A stream that is not 200 or lacks `[DONE]` counts as an error.
 */
async function measureTtfb(url, headers, count) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const payload = Buffer.from(JSON.stringify(STREAM_BODY));
  const ttfb = [];
  const total = [];
  let errors = 0;
  let lastError = '';
  for (let i = 0; i < count; i++) {
    try {
      const sample = await new Promise((resolve, reject) => {
        const started = process.hrtime.bigint();
        let first = 0n;
        let text = '';
        const req = http.request(
          url,
          {
            method: 'POST',
            agent,
            timeout: 30_000,
            headers: { ...headers, 'content-type': 'application/json', 'content-length': payload.length },
          },
          (res) => {
            res.on('data', (part) => {
              if (first === 0n) first = process.hrtime.bigint();
              if (text.length < 100_000) text += part.toString('latin1');
            });
            res.on('end', () => {
              const ended = process.hrtime.bigint();
              if (res.statusCode !== 200 || !text.includes('[DONE]')) {
                reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 300)}`));
              } else {
                resolve({ ttfb: Number(first - started) / 1e6, total: Number(ended - started) / 1e6 });
              }
            });
            res.on('error', reject);
          },
        );
        req.on('timeout', () => req.destroy(new Error('stream timed out')));
        req.on('error', reject);
        req.end(payload);
      });
      ttfb.push(sample.ttfb);
      total.push(sample.total);
    } catch (error) {
      errors += 1;
      lastError = error.message;
    }
  }
  agent.destroy();
  return {
    count: ttfb.length,
    errors,
    lastError,
    ttfbP50: percentile(ttfb, 50),
    ttfbP99: percentile(ttfb, 99),
    totalP50: percentile(total, 50),
  };
}

/**
 * Opens `count` streamed requests at once (one connection each) and keeps them open until the upstream ends them.
 * `state` is updated live: open (first byte seen), done, failed. Resolves with the final state.
 */
function holdStreams(url, headers, count, { timeoutMs = 120_000 } = {}) {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const payload = Buffer.from(JSON.stringify(STREAM_BODY));
  const state = { started: 0, open: 0, maxOpen: 0, done: 0, failed: 0, lastError: '', firstByteMs: [] };
  const startedAt = Date.now();
  const one = () =>
    new Promise((resolve) => {
      state.started += 1;
      const begun = process.hrtime.bigint();
      let seen = false;
      let settled = false;
      let tailText = '';
      const settle = (error) => {
        if (settled) return;
        settled = true;
        if (seen) state.open -= 1;
        if (error) {
          state.failed += 1;
          state.lastError = error;
        } else state.done += 1;
        resolve();
      };
      const req = http.request(
        url,
        {
          method: 'POST',
          agent,
          timeout: timeoutMs,
          headers: { ...headers, 'content-type': 'application/json', 'content-length': payload.length },
        },
        (res) => {
          res.on('data', (part) => {
            if (!seen) {
              seen = true;
              state.open += 1;
              if (state.open > state.maxOpen) state.maxOpen = state.open;
              state.firstByteMs.push(Number(process.hrtime.bigint() - begun) / 1e6);
            }
            tailText = (tailText + part.toString('latin1')).slice(-64);
          });
          res.on('end', () =>
            settle(res.statusCode === 200 && tailText.includes('[DONE]') ? undefined : `HTTP ${res.statusCode}: ${tailText}`),
          );
          res.on('error', (error) => settle(error.message));
          res.on('close', () => settle('connection closed before the stream ended'));
        },
      );
      req.on('timeout', () => req.destroy(new Error('stream timed out')));
      req.on('error', (error) => settle(error.message));
      req.end(payload);
    });
  const all = Promise.all(Array.from({ length: count }, one)).then(() => {
    agent.destroy();
    state.seconds = (Date.now() - startedAt) / 1000;
    return state;
  });
  return { state, done: all };
}

module.exports = { BODY, STREAM_BODY, request, measureTtfb, holdStreams };
