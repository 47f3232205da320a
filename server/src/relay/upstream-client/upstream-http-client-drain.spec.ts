import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errors as undiciErrors } from 'undici';
import type { UpstreamRequest } from '../../upstreams/upstream-adapter';
import { ClientGoneSignal } from '../http/client-gone-signal';
import { DrainExpiredError, isDrainExpired, UpstreamHttpClient, UpstreamTransportError } from './upstream-http-client';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a client that leaves does to an upstream call: before its request is written, and after (the drain bound). */
describe('UpstreamHttpClient: the client goes away', () => {
  let server: Server;
  let origin: string;
  let handler: Handler;
  let client: UpstreamHttpClient;
  /** Paths the upstream received, and those whose connection closed before the answer ended. */
  const received: string[] = [];
  const closed: Array<{ path: string; at: number }> = [];
  let arrived: (path: string) => void = () => undefined;

  beforeAll(async () => {
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        received.push(request.url ?? '');
        arrived(request.url ?? '');
        handler(request, response);
      });
      response.on('close', () => {
        if (!response.writableFinished) closed.push({ path: request.url ?? '', at: Date.now() });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    client = new UpstreamHttpClient();
    received.length = 0;
    closed.length = 0;
  });
  afterEach(() => client.onModuleDestroy());
  afterAll(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });

  const call = (path: string): UpstreamRequest => ({
    origin,
    path,
    url: `${origin}${path}`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"model":"m"}',
  });
  const timeouts = { headersTimeoutMs: 0, bodyTimeoutMs: 10_000 };
  const upstreamHas = (path: string) =>
    new Promise<void>((resolve) => {
      arrived = (got) => got === path && resolve();
    });

  it('a written request goes on after the client left: an answer inside the bound is read whole, and nothing is aborted later', async () => {
    handler = (_request, response) => setTimeout(() => response.writeHead(200).end('{"usage":{"prompt_tokens":3}}'), 300);
    const signal = new ClientGoneSignal();
    const has = upstreamHas('/late');
    const pending = client.send(call('/late'), { ...timeouts, signal, drainAfterClientGoneMs: 1_000 });
    await has;
    signal.abort();
    const answer = await pending;
    expect((await answer.body.bytes()).toString()).toBe('{"usage":{"prompt_tokens":3}}');
    await sleep(1_200);
    expect(closed).toEqual([]);
  });

  it('an upstream that never answers is aborted once the bound ran out after the client left, with DrainExpiredError as the cause', async () => {
    handler = () => undefined;
    const signal = new ClientGoneSignal();
    const has = upstreamHas('/silent');
    const pending = client.send(call('/silent'), { ...timeouts, signal, drainAfterClientGoneMs: 600 });
    await has;
    const left = Date.now();
    signal.abort();
    const error = await pending.catch((caught: unknown) => caught);
    const waited = Date.now() - left;
    expect(error).toBeInstanceOf(UpstreamTransportError);
    expect((error as UpstreamTransportError).cause).toBeInstanceOf(DrainExpiredError);
    expect(isDrainExpired(error)).toBe(true);
    expect(waited).toBeGreaterThanOrEqual(590);
    expect(waited).toBeLessThan(2_000);
    await sleep(50);
    expect(closed.map((entry) => entry.path)).toEqual(['/silent']);
  });

  it('a body that never ends is read on while the client is gone, then aborted at the bound: its reader gets DrainExpiredError', async () => {
    let timer: NodeJS.Timeout | undefined;
    handler = (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const tick = () => {
        if (response.destroyed) return;
        response.write('data: {}\n\n');
        timer = setTimeout(tick, 50);
      };
      tick();
    };
    try {
      const signal = new ClientGoneSignal();
      const answer = await client.send(call('/endless'), { ...timeouts, signal, drainAfterClientGoneMs: 500 });
      let chunks = 0;
      let left = 0;
      const error = await (async () => {
        for await (const _chunk of answer.body) {
          chunks++;
          if (chunks === 1) {
            left = Date.now();
            signal.abort();
          }
        }
      })().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DrainExpiredError);
      expect(isDrainExpired(error)).toBe(true);
      expect(Date.now() - left).toBeGreaterThanOrEqual(490);
      // The upstream kept sending, and the relay kept reading, while the client was gone.
      expect(chunks).toBeGreaterThan(3);
    } finally {
      clearTimeout(timer);
    }
  });

  it('drain 0 aborts a written request at once, still as a drain that ran out (the upstream had it)', async () => {
    handler = () => undefined;
    const signal = new ClientGoneSignal();
    const has = upstreamHas('/zero');
    const pending = client.send(call('/zero'), { ...timeouts, signal, drainAfterClientGoneMs: 0 });
    await has;
    const left = Date.now();
    signal.abort();
    const error = await pending.catch((caught: unknown) => caught);
    expect(isDrainExpired(error)).toBe(true);
    expect(Date.now() - left).toBeLessThan(500);
  });

  it('without a drain bound a written request is aborted at once, as a plain abort (not a drain)', async () => {
    handler = () => undefined;
    const signal = new ClientGoneSignal();
    const has = upstreamHas('/plain');
    const pending = client.send(call('/plain'), { ...timeouts, signal });
    await has;
    signal.abort();
    const error = await pending.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamTransportError);
    expect((error as UpstreamTransportError).cause).toBeInstanceOf(undiciErrors.RequestAbortedError);
    expect(isDrainExpired(error)).toBe(false);
  });

  it('a request still waiting for a connection when the client leaves is never written: the upstream does not receive it', async () => {
    await client.onModuleDestroy();
    // One connection per origin: the second call waits in the pool behind the first.
    client = new UpstreamHttpClient({ UPSTREAM_KEEPALIVE_MS: 20_000, UPSTREAM_MAX_CONNECTIONS: 1 });
    let release: () => void = () => undefined;
    handler = (_request, response) => {
      release = () => response.writeHead(200).end('{}');
    };
    const has = upstreamHas('/first');
    const first = client.send(call('/first'), timeouts);
    await has;
    const signal = new ClientGoneSignal();
    const queued = client.send(call('/queued'), { ...timeouts, signal, drainAfterClientGoneMs: 5_000 });
    await sleep(100);
    signal.abort();
    release();
    await (await first).body.bytes();
    const error = await queued.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamTransportError);
    expect(isDrainExpired(error)).toBe(false);
    await sleep(100);
    expect(received).toEqual(['/first']);
  });

  it('a refused connection is a plain transport error, whatever the client does', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const signal = new ClientGoneSignal();
    const refused = { ...call('/x'), origin: `http://127.0.0.1:${port}`, url: `http://127.0.0.1:${port}/x` };
    const pending = client.send(refused, { ...timeouts, signal, drainAfterClientGoneMs: 5_000 });
    signal.abort();
    const error = await pending.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamTransportError);
    expect(isDrainExpired(error)).toBe(false);
  });
});
