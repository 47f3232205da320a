import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { httpMetrics } from '../../modules/metrics';
import type { RelayMode } from '../../upstreams/upstream-adapter';
import type { RelayHttpRequest, RelayPipelineService } from '../pipeline/relay-pipeline.service';
import { RelayFastPath } from './relay-fast-path';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One raw HTTP/1.1 request (node:http client: full control over Content-Length, chunking and headers). */
function send(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: Buffer | string; chunks?: Buffer[] },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method: options.method ?? 'POST', path: options.path, headers: options.headers ?? {} },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (chunk: Buffer) => parts.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (options.chunks) {
      for (const chunk of options.chunks) req.write(chunk);
      req.end();
    } else {
      req.end(options.body);
    }
  });
}

describe('RelayFastPath (the hot relay routes ahead of Fastify)', () => {
  let server: Server;
  let port: number;
  let fastPath: RelayFastPath;
  let registry: Registry;
  const handled: Array<{ input: RelayHttpRequest; mode: RelayMode }> = [];
  const fellBack: string[] = [];

  const pipeline = {
    async handle(input: RelayHttpRequest, response: ServerResponse, mode: RelayMode): Promise<void> {
      handled.push({ input, mode });
      response.writeHead(200, { 'content-type': 'application/json', 'x-oneapi-request-id': input.requestId });
      response.end(JSON.stringify({ ok: true }));
    },
  } as unknown as RelayPipelineService;

  async function start(options: { trustProxy?: boolean; bodyLimit?: number } = {}): Promise<void> {
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      fellBack.push(`${request.method} ${request.url}`);
      request.resume();
      request.on('end', () => {
        response.writeHead(299);
        response.end('fastify');
      });
    });
    registry = new Registry();
    fastPath = new RelayFastPath({
      pipeline,
      bodyLimit: options.bodyLimit ?? 1024,
      trustProxy: options.trustProxy ?? false,
      metrics: httpMetrics(registry),
    });
    fastPath.install(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  }

  afterEach(async () => {
    handled.length = 0;
    fellBack.length = 0;
    await new Promise((resolve) => server.close(resolve));
  });

  const json = { 'content-type': 'application/json' };

  it('serves the static relay POST routes itself, with the body as sent, a new request id, the path and the query', async () => {
    await start();
    const body = '{"model":"gpt-4o","temperature":0}';
    const answer = await send(port, {
      path: '/v1/chat/completions?api-version=1',
      headers: { ...json, 'x-request-id': 'client-chosen' },
      body,
    });
    expect(answer.status).toBe(200);
    expect(fellBack).toEqual([]);
    expect(handled).toHaveLength(1);
    const [{ input, mode }] = handled;
    expect(mode).toBe('chat');
    expect(input.path).toBe('/v1/chat/completions');
    expect(input.query).toBe('api-version=1');
    expect(input.rawBody?.toString()).toBe(body);
    expect(input.requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(input.requestId).not.toBe('client-chosen');
    expect(answer.headers['x-oneapi-request-id']).toBe(input.requestId);
    expect(input.clientIp).toBe('127.0.0.1');
    expect(input.signal.aborted).toBe(false);
  });

  it('maps every static route to its mode, a trailing slash included, and multipart bodies too', async () => {
    await start();
    const cases: Array<[string, RelayMode, string]> = [
      ['/v1/completions', 'completions', 'application/json'],
      ['/v1/embeddings/', 'embeddings', 'application/json; charset=utf-8'],
      ['/v1/moderations', 'moderations', 'APPLICATION/JSON'],
      ['/v1/images/generations', 'images-generations', 'application/json'],
      ['/v1/audio/speech', 'audio-speech', 'application/json'],
      ['/v1/audio/transcriptions', 'audio-transcriptions', 'multipart/form-data; boundary=x'],
      ['/v1/audio/translations', 'audio-translations', 'multipart/form-data; boundary=x'],
      ['/v1/rerank', 'rerank', 'application/json'],
    ];
    for (const [path, _mode, contentType] of cases) {
      await send(port, { path, headers: { 'content-type': contentType }, body: '{}' });
    }
    expect(fellBack).toEqual([]);
    expect(handled.map(({ input, mode }) => [input.path, mode])).toEqual(cases.map(([path, mode]) => [path.replace(/\/$/, ''), mode]));
  });

  it('leaves everything else to the server listener it was put in front of', async () => {
    await start();
    await send(port, { method: 'GET', path: '/v1/chat/completions' });
    await send(port, { method: 'OPTIONS', path: '/v1/chat/completions', headers: { origin: 'https://a.example' } });
    await send(port, { path: '/v1/engines/ada/embeddings', headers: json, body: '{}' });
    await send(port, { path: '/pg/chat/completions', headers: json, body: '{}' });
    await send(port, { path: '/api/user/login', headers: json, body: '{}' });
    await send(port, { path: '/v1/chat/completions', headers: { 'content-type': 'text/plain' }, body: '{}' });
    await send(port, { path: '/v1/chat/completions', headers: { 'content-type': 'application/jsonx' }, body: '{}' });
    await send(port, { path: '/V1/chat/completions', headers: json, body: '{}' });
    fastPath.close();
    await send(port, { path: '/v1/chat/completions', headers: json, body: '{}' });
    expect(handled).toEqual([]);
    expect(fellBack).toEqual([
      'GET /v1/chat/completions',
      'OPTIONS /v1/chat/completions',
      'POST /v1/engines/ada/embeddings',
      'POST /pg/chat/completions',
      'POST /api/user/login',
      'POST /v1/chat/completions',
      'POST /v1/chat/completions',
      'POST /V1/chat/completions',
      'POST /v1/chat/completions',
    ]);
  });

  it('hands over no body as null, as the Fastify route did, and a chunked body whole', async () => {
    await start();
    await send(port, { path: '/v1/chat/completions' });
    await send(port, { path: '/v1/chat/completions', headers: { ...json, 'content-length': '0' }, body: '' });
    await send(port, { path: '/v1/chat/completions', headers: json, chunks: [Buffer.from('{"model":'), Buffer.from('"a"}')] });
    expect(handled.map(({ input }) => input.rawBody?.toString() ?? null)).toEqual([null, null, '{"model":"a"}']);
  });

  it('answers a body over the limit 413 in the relay shape, by its Content-Length or as it grows, and never runs the pipeline', async () => {
    await start({ bodyLimit: 16 });
    const declared = await send(port, { path: '/v1/chat/completions', headers: json, body: Buffer.alloc(17, 0x20) });
    const chunked = await send(port, {
      path: '/v1/chat/completions',
      headers: json,
      chunks: [Buffer.alloc(10, 0x20), Buffer.alloc(10, 0x20)],
    });
    const fits = await send(port, { path: '/v1/chat/completions', headers: json, body: Buffer.alloc(16, 0x20) });
    for (const answer of [declared, chunked]) {
      expect(answer.status).toBe(413);
      const id = answer.headers['x-oneapi-request-id'];
      expect(JSON.parse(answer.body)).toEqual({
        error: { message: `无效的请求, http: request body too large (request id: ${id})`, type: 'new_api_error' },
      });
    }
    expect(fits.status).toBe(200);
    expect(handled).toHaveLength(1);
  });

  it('answers 400 when the body ends short of its Content-Length (the client broke off)', async () => {
    await start();
    const answer = await new Promise<{ status: number } | 'closed'>((resolve) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, method: 'POST', path: '/v1/chat/completions', headers: { ...json, 'content-length': '100' } },
        (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0 });
        },
      );
      req.on('error', () => resolve('closed'));
      req.write('{"model":');
      setTimeout(() => req.destroy(), 50);
    });
    // The client is gone, so no answer reaches it; what matters is that the pipeline never ran.
    expect(answer).toBe('closed');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(handled).toEqual([]);
  });

  it('puts the CORS allow headers on answers and on its own errors, only when the request has an Origin', async () => {
    await start();
    const origin = { ...json, origin: 'https://a.example' };
    const withOrigin = await send(port, { path: '/v1/chat/completions', headers: origin, body: '{}' });
    const without = await send(port, { path: '/v1/chat/completions', headers: json, body: '{}' });
    const refused = await send(port, { path: '/v1/chat/completions', headers: { ...origin, 'content-length': String(10 * 1024) } });
    expect(withOrigin.headers['access-control-allow-origin']).toBe('*');
    expect(withOrigin.headers['access-control-allow-credentials']).toBe('true');
    expect(without.headers['access-control-allow-origin']).toBeUndefined();
    expect(refused.status).toBe(413);
    expect(refused.headers['access-control-allow-origin']).toBe('*');
  });

  it('takes the client address from X-Forwarded-For only behind a trusted proxy (leftmost entry)', async () => {
    await start();
    await send(port, { path: '/v1/chat/completions', headers: { ...json, 'x-forwarded-for': '203.0.113.7, 10.0.0.1' }, body: '{}' });
    await new Promise((resolve) => server.close(resolve));
    await start({ trustProxy: true });
    await send(port, { path: '/v1/chat/completions', headers: { ...json, 'x-forwarded-for': ' 203.0.113.7 , 10.0.0.1' }, body: '{}' });
    await send(port, { path: '/v1/chat/completions', headers: json, body: '{}' });
    expect(handled.map(({ input }) => input.clientIp)).toEqual(['127.0.0.1', '203.0.113.7', '127.0.0.1']);
  });

  it('counts each answer under its route pattern and status, as the Fastify onResponse hook does', async () => {
    await start({ bodyLimit: 16 });
    await send(port, { path: '/v1/chat/completions', headers: json, body: '{}' });
    await send(port, { path: '/v1/chat/completions/', headers: json, body: '{}' });
    await send(port, { path: '/v1/chat/completions', headers: json, body: Buffer.alloc(32, 0x20) });
    await new Promise((resolve) => setImmediate(resolve));
    const text = await registry.metrics();
    expect(text).toMatch(/tollgate_http_requests_total\{method="POST",route="\/v1\/chat\/completions",status_code="200"\} 2/);
    expect(text).toMatch(/tollgate_http_requests_total\{method="POST",route="\/v1\/chat\/completions",status_code="413"\} 1/);
    expect(text).toMatch(/tollgate_http_request_duration_seconds_count\{method="POST",route="\/v1\/chat\/completions"\} 3/);
  });

  it("aborts the request's signal when the client leaves before its answer, and counts that request too", async () => {
    let gone: RelayHttpRequest | null = null;
    const waiting = pipeline.handle;
    pipeline.handle = async (input: RelayHttpRequest) => {
      gone = input;
      await new Promise<void>((resolve) => input.signal.addEventListener('abort', () => resolve()));
    };
    try {
      await start();
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/v1/chat/completions', headers: json });
      req.on('error', () => undefined);
      req.end('{}');
      while (gone === null) await new Promise((resolve) => setTimeout(resolve, 5));
      expect((gone as RelayHttpRequest).signal.aborted).toBe(false);
      req.destroy();
      while (!(gone as RelayHttpRequest).signal.aborted) await new Promise((resolve) => setTimeout(resolve, 5));
      const text = await registry.metrics();
      expect(text).toMatch(/tollgate_http_request_duration_seconds_count\{method="POST",route="\/v1\/chat\/completions"\} 1/);
    } finally {
      pipeline.handle = waiting;
    }
    // A finished answer never aborts its signal (the close after it is not the client leaving).
    await send(port, { path: '/v1/chat/completions', headers: json, body: '{}' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(handled.at(-1)?.input.signal.aborted).toBe(false);
  });

  it('refuses to install over a server with no single request listener', () => {
    const bare = createServer();
    expect(() => new RelayFastPath({ pipeline, bodyLimit: 1, trustProxy: false, metrics: null }).install(bare)).toThrow(
      /expected one request listener/,
    );
    server = createServer();
    server.listen(0);
  });
});
