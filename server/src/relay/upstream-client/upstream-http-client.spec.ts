import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { UpstreamRequest } from '../../upstreams/upstream-adapter';
import { parseConfig } from '../../config/app-config';
import { isBodyTimeout, UpstreamHttpClient, UpstreamTransportError } from './upstream-http-client';

type Handler = (request: IncomingMessage, response: ServerResponse, body: Buffer) => void;

describe('UPSTREAM_KEEPALIVE_MS', () => {
  it('is 20 s by default; a value under one second or not a number is refused at start', () => {
    const keepAlive = (value?: string) => parseConfig({ UPSTREAM_KEEPALIVE_MS: value }).UPSTREAM_KEEPALIVE_MS;
    expect(keepAlive()).toBe(20_000);
    expect(keepAlive('60000')).toBe(60_000);
    for (const value of ['10', 'soon'])
      expect(() => keepAlive(value)).toThrow(`UPSTREAM_KEEPALIVE_MS must be an integer >= 1000 (got "${value}")`);
  });
});

describe('UpstreamHttpClient (undici dispatch)', () => {
  let server: Server;
  let origin: string;
  let handler: Handler;
  let client: UpstreamHttpClient;
  const closed: string[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => handler(request, response, Buffer.concat(chunks)));
      response.on('close', () => {
        if (!response.writableFinished) closed.push(request.url ?? '');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    client = new UpstreamHttpClient();
    closed.length = 0;
  });
  afterEach(() => client.onModuleDestroy());
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const call = (path: string, body?: string): UpstreamRequest => ({
    origin,
    path,
    url: `${origin}${path}`,
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
    body,
  });
  const timeouts = { headersTimeoutMs: 0, bodyTimeoutMs: 5_000 };

  it('sends method, path, headers and body as given, and answers status, headers and the whole body', async () => {
    handler = (request, response, body) => {
      response.writeHead(201, { 'content-type': 'application/json; charset=utf-8', 'x-upstream': 'a' });
      response.end(
        JSON.stringify({ method: request.method, url: request.url, auth: request.headers.authorization, body: body.toString() }),
      );
    };
    const answer = await client.send(call('/v1/chat/completions?x=1', '{"temperature":0}'), timeouts);
    expect(answer.status).toBe(201);
    expect(answer.contentType).toBe('application/json; charset=utf-8');
    expect(answer.headers['x-upstream']).toBe('a');
    expect(JSON.parse((await answer.body.bytes()).toString())).toEqual({
      method: 'POST',
      url: '/v1/chat/completions?x=1',
      auth: 'Bearer k',
      body: '{"temperature":0}',
    });
  });

  it('reads a body written in many pieces whole, as text and as an ArrayBuffer', async () => {
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      let n = 0;
      const next = () => (n++ < 5 ? response.write(`part${n};`, () => setTimeout(next, 2)) : response.end('end'));
      next();
    };
    expect(await (await client.send(call('/text'), timeouts)).body.text()).toBe('part1;part2;part3;part4;part5;end');
    const buffer = await (await client.send(call('/text'), timeouts)).body.arrayBuffer();
    expect(Buffer.from(buffer).toString()).toBe('part1;part2;part3;part4;part5;end');
  });

  it('iterates a stream chunk by chunk as it arrives, and holds the socket back while the reader is slow', async () => {
    const piece = Buffer.alloc(64 * 1024, 0x61);
    const pieces = 1024; // 64 MiB: far more than the kernel's socket buffers hold
    let written = 0;
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const pump = () => {
        while (written < pieces) {
          written++;
          if (!response.write(piece)) {
            response.once('drain', pump);
            return;
          }
        }
        response.end();
      };
      pump();
    };
    const answer = await client.send(call('/stream'), timeouts);
    let read = 0;
    let writtenWhenFirstRead = -1;
    for await (const chunk of answer.body) {
      if (writtenWhenFirstRead < 0) {
        // A slow reader: wait, then see how far the server got. Without back-pressure it would have written it all.
        await new Promise((resolve) => setTimeout(resolve, 200));
        writtenWhenFirstRead = written;
      }
      read += chunk.length;
    }
    expect(read).toBe(pieces * piece.length);
    expect(writtenWhenFirstRead).toBeLessThan(pieces / 2);
  });

  it('tells whether a read would wait: not before the first bytes, yes once they or the end arrived, not once taken', async () => {
    let send: (text: string) => void = () => undefined;
    let finish: () => void = () => undefined;
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.flushHeaders();
      send = (text) => response.write(text);
      finish = () => response.end();
    };
    const answer = await client.send(call('/ready'), timeouts);
    expect(answer.body.ready()).toBe(false); // headers only: a model still thinking
    send('data: 1\n\n');
    await waitUntil(() => answer.body.ready());
    const reader = answer.body[Symbol.asyncIterator]();
    expect((await reader.next()).value.toString()).toBe('data: 1\n\n');
    expect(answer.body.ready()).toBe(false); // taken
    finish();
    await waitUntil(() => answer.body.ready()); // the end is there: a read returns at once
    expect((await reader.next()).done).toBe(true);
  });

  it('closes the upstream request when the reader stops early or destroys the body', async () => {
    handler = (request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const timer = setInterval(() => response.write('data: x\n\n'), 5);
      response.on('close', () => clearInterval(timer));
      void request;
    };
    const early = await client.send(call('/early'), timeouts);
    for await (const chunk of early.body) {
      expect(chunk.length).toBeGreaterThan(0);
      break;
    }
    const destroyed = await client.send(call('/destroyed'), timeouts);
    destroyed.body.destroy();
    await expect(destroyed.body.bytes()).rejects.toThrow();
    await waitFor(() => closed.length === 2);
    expect(closed.sort()).toEqual(['/destroyed', '/early']);
  });

  it('aborts with the signal: before the call it never reaches the upstream; during it, the upstream request closes', async () => {
    let reached = 0;
    handler = (_request, response) => {
      reached++;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: first\n\n');
    };
    const before = new AbortController();
    before.abort();
    await expect(client.send(call('/before'), { ...timeouts, signal: before.signal })).rejects.toBeInstanceOf(UpstreamTransportError);

    const during = new AbortController();
    const answer = await client.send(call('/during'), { ...timeouts, signal: during.signal });
    const reading = (async () => {
      for await (const chunk of answer.body) void chunk;
    })();
    during.abort();
    await expect(reading).rejects.toThrow(/aborted/i);
    await waitFor(() => closed.includes('/during'));
    expect(reached).toBe(1);
  });

  it('rejects with UpstreamTransportError when the upstream cannot be reached or sends no headers in time', async () => {
    const refused = { ...call('/x'), origin: 'http://127.0.0.1:1', url: 'http://127.0.0.1:1/x' };
    await expect(client.send(refused, timeouts)).rejects.toBeInstanceOf(UpstreamTransportError);
    handler = () => undefined; // never answers
    await expect(client.send(call('/slow-headers'), { headersTimeoutMs: 100, bodyTimeoutMs: 5_000 })).rejects.toThrow(
      /upstream request failed: Headers Timeout/,
    );
  });

  it('fails the body reader with a body timeout when a stream goes silent, and with the cause when it breaks off', async () => {
    handler = (request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: one\n\n');
      if (request.url === '/cut') setTimeout(() => response.destroy(), 20);
    };
    const silent = await client.send(call('/silent'), { headersTimeoutMs: 0, bodyTimeoutMs: 100 });
    const error = await silent.body.bytes().catch((failure: unknown) => failure);
    expect(isBodyTimeout(error)).toBe(true);

    const cut = await client.send(call('/cut'), timeouts);
    const chunks: string[] = [];
    const failure = await (async () => {
      for await (const chunk of cut.body) chunks.push(chunk.toString());
    })().catch((caught: unknown) => caught);
    expect(chunks.join('')).toBe('data: one\n\n');
    expect(failure).toBeInstanceOf(Error);
    expect(isBodyTimeout(failure)).toBe(false);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function waitUntil(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
