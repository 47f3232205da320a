import { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { OpenAIUpstreamFake } from '../fakes/upstreams/openai-upstream-fake';
import { createTestApp, type TestApp } from '../support/app';
import { chargeCount, createChannel, listen, routable, userWithToken } from './relay-support';
import { dataSource, projected, rootCaller } from './users-support';
import { chargeOfRow } from '#test/support/quota-consumed-fixture';

jest.setTimeout(120_000);

interface Probe {
  name: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Use the token of the app under test (default true). */
  authorized?: boolean;
}

/** What a client can tell about an answer, with the request id and the generated ids taken out. */
interface Seen {
  status: number;
  contentType: string | null;
  cors: string | null;
  nosniff: string | null;
  hasRequestId: boolean;
  body: unknown;
}

const PROBES: Probe[] = [
  {
    name: 'chat',
    path: '/v1/chat/completions',
    body: JSON.stringify({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'Hello there' }] }),
  },
  {
    name: 'chat, trailing slash and query',
    path: '/v1/chat/completions/?x=1',
    body: JSON.stringify({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'Hi' }] }),
  },
  {
    name: 'stream',
    path: '/v1/chat/completions',
    body: JSON.stringify({ model: 'gpt-3.5-turbo', stream: true, messages: [{ role: 'user', content: 'Hi' }] }),
  },
  { name: 'embeddings', path: '/v1/embeddings', body: JSON.stringify({ model: 'text-embedding-ada-002', input: 'hello' }) },
  { name: 'malformed JSON', path: '/v1/chat/completions', body: '{"model": ' },
  { name: 'no body', path: '/v1/completions' },
  { name: 'empty body', path: '/v1/completions', body: '' },
  { name: 'over-sized body', path: '/v1/embeddings', body: Buffer.alloc(33 * 1024 * 1024, 0x20) },
  {
    name: 'unknown model',
    path: '/v1/chat/completions',
    body: JSON.stringify({ model: 'no-such-model', messages: [{ role: 'user', content: 'Hi' }] }),
  },
  { name: 'bad token', path: '/v1/chat/completions', body: JSON.stringify({ model: 'gpt-3.5-turbo', messages: [] }), authorized: false },
  { name: 'CORS', path: '/v1/chat/completions', headers: { origin: 'https://app.example' }, body: '{' },
];

function normalise(text: string, requestId: string | null): unknown {
  const scrubbed = requestId ? text.split(requestId).join('<request-id>') : text;
  try {
    return JSON.parse(scrubbed);
  } catch {
    // SSE: every data line, parsed where it is JSON
    return scrubbed
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => line.slice(6));
  }
}

/**
 * The fast path (relay-fast-path.ts) must answer exactly what the Fastify relay routes answer. Two installations, one
 * with RELAY_FAST_PATH=off, get the same requests (good ones, streams, and each kind of bad input); what a client
 * sees of the answers must be the same, and both charge the same requests.
 */
describe('relay fast path: the same answers as the Fastify relay routes', () => {
  const upstream = new OpenAIUpstreamFake();
  const installations: Array<{ name: string; target: TestApp; baseURL: string; key: string }> = [];

  beforeAll(async () => {
    await upstream.start();
    for (const [name, env] of [
      ['fast path', {}],
      ['Fastify', { RELAY_FAST_PATH: 'off' }],
    ] as const) {
      const target = await createTestApp({ env });
      const baseURL = await listen(target);
      const root = await rootCaller(target);
      await createChannel(target, root, {
        type: 1,
        name: 'fake-openai',
        baseUrl: upstream.baseUrl,
        models: ['gpt-3.5-turbo', 'text-embedding-ada-002'],
      });
      const user = await userWithToken(target, 'alice', 10_000_000, { unlimited_quota: false, remain_quota: 5_000_000 });
      await routable(target, user.key, baseURL, 'gpt-3.5-turbo');
      installations.push({ name, target, baseURL, key: user.key });
    }
  });

  afterAll(async () => {
    for (const { target } of installations) await target.close();
    await upstream.close();
  });

  async function probe(installation: (typeof installations)[number], probe: Probe): Promise<Seen> {
    const origin = installation.baseURL.replace(/\/v1$/, '');
    const headers: Record<string, string> = { 'content-type': 'application/json', ...probe.headers };
    headers.authorization = `Bearer ${probe.authorized === false ? 'sk-not-a-token' : installation.key}`;
    const response = await fetch(`${origin}${probe.path}`, { method: 'POST', headers, body: probe.body });
    const requestId = response.headers.get('x-oneapi-request-id');
    const text = await response.text();
    return {
      status: response.status,
      contentType: response.headers.get('content-type'),
      cors: response.headers.get('access-control-allow-origin'),
      nosniff: response.headers.get('x-content-type-options'),
      hasRequestId: requestId !== null && /^[0-9a-f-]{36}$/.test(requestId),
      body: normalise(text, requestId),
    };
  }

  it('answers every probe identically, and charges the same requests', async () => {
    const seen = new Map<string, Seen[]>();
    for (const installation of installations) {
      for (const p of PROBES) {
        const answer = await probe(installation, p);
        seen.set(p.name, [...(seen.get(p.name) ?? []), answer]);
      }
    }
    for (const p of PROBES) {
      const [fast, fastify] = seen.get(p.name)!;
      expect({ probe: p.name, ...fast }).toEqual({ probe: p.name, ...fastify });
      expect(fast.hasRequestId).toBe(true);
    }
    // The probes that must have been refused were (a sanity check that the comparison compared something).
    expect(seen.get('chat')![0].status).toBe(200);
    // A trailing slash reaches the upstream as the canonical path (it used to be forwarded as sent, and 404).
    expect(seen.get('chat, trailing slash and query')![0].status).toBe(200);
    expect(upstream.requests.filter((r) => r.url.startsWith('/v1/chat/completions/'))).toEqual([]);
    expect(seen.get('malformed JSON')![0].status).toBe(400);
    expect(seen.get('over-sized body')![0].status).toBe(413);
    expect(seen.get('bad token')![0].status).toBe(401);
    expect(seen.get('CORS')![0].cors).toBe('*');

    const charged = [];
    for (const { target } of installations) {
      await projected(target);
      charged.push(await chargeCount(target));
    }
    expect(charged[0]).toBe(4); // chat twice (one with a trailing slash), the stream, the embeddings
    expect(charged[1]).toBe(charged[0]);
  });
  it('reads the answer on when the client leaves after the upstream got the request, and charges it once as client_gone (both installations)', async () => {
    for (const installation of installations) {
      await projected(installation.target);
      const before = await chargeCount(installation.target);
      const calls = upstream.requests.length;
      upstream.next({ delayMs: 1_500 });
      const origin = installation.baseURL.replace(/\/v1$/, '');
      const client = new AbortController();
      const leaving = setTimeout(() => client.abort(), 300);
      await expect(
        fetch(`${origin}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${installation.key}` },
          body: JSON.stringify({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'Hi' }] }),
          signal: client.signal,
        }),
      ).rejects.toThrow();
      clearTimeout(leaving);
      // Past the upstream's delay: the gateway kept reading (issue 19 §5: the upstream did the work and bills the
      // operator), so the answer arrived and is charged once, with the upstream's usage and the end reason.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      await projected(installation.target);
      expect({ installation: installation.name, charged: await chargeCount(installation.target) }).toEqual({
        installation: installation.name,
        charged: before + 1,
      });
      const [row]: Array<{ event_id: string; stream_id: string; data: unknown }> = await dataSource(installation.target).query(
        `SELECT event_id, stream_id, data FROM events WHERE type = 'QuotaConsumed' ORDER BY position DESC LIMIT 1`,
      );
      const last = { data: chargeOfRow(row) };
      expect({ installation: installation.name, usageSource: last.data.usageSource, endReason: last.data.endReason }).toEqual({
        installation: installation.name,
        usageSource: 'upstream',
        endReason: 'client_gone',
      });
      expect(upstream.requests.length).toBe(calls + 1);
    }
  });

  /** A streamed chat over a raw socket: every read with its time (ms from the request), as the client's kernel hands them over. */
  async function rawStream(installation: (typeof installations)[number]): Promise<Array<{ atMs: number; text: string }>> {
    const { hostname, port } = new URL(installation.baseURL);
    const body = JSON.stringify({ model: 'gpt-3.5-turbo', stream: true, messages: [{ role: 'user', content: 'Hi' }] });
    const reads: Array<{ atMs: number; text: string }> = [];
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => {
        const started = performance.now();
        socket.on('data', (chunk: Buffer) => {
          reads.push({ atMs: performance.now() - started, text: chunk.toString('utf8') });
          if (
            reads
              .map((read) => read.text)
              .join('')
              .includes('data: [DONE]')
          )
            socket.end();
        });
        socket.write(
          `POST /v1/chat/completions HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n` +
            `Authorization: Bearer ${installation.key}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    return reads;
  }

  it("sends a stream's headers at once while the model thinks, and with the first event when that is already there (both installations)", async () => {
    // The local ports of answers whose headers went out on their own (flushHeaders); the fake upstream, in this process
    // too, flushes its own. Of the gateway's answers only the slow stream should need it.
    const flushedOn: number[] = [];
    const flushHeaders = ServerResponse.prototype.flushHeaders;
    const spy = jest.spyOn(ServerResponse.prototype, 'flushHeaders').mockImplementation(function (this: ServerResponse) {
      flushedOn.push(this.socket?.localPort ?? 0);
      flushHeaders.call(this);
    });
    try {
      for (const installation of installations) {
        // The upstream answers its headers, then thinks for 600 ms: the client has the 200 long before the first event.
        const gatewayPort = Number(new URL(installation.baseURL).port);
        const gatewayFlushes = () => flushedOn.filter((port) => port === gatewayPort).length;
        flushedOn.length = 0;
        upstream.next({ firstEventDelayMs: 600 });
        const slow = await rawStream(installation);
        const headersAt = slow.find((read) => read.text.startsWith('HTTP/1.1 200'))?.atMs ?? Infinity;
        const firstEventAt = slow.find((read) => read.text.includes('data: {'))?.atMs ?? Infinity;
        expect({
          installation: installation.name,
          headersEarly: headersAt < 400,
          eventLate: firstEventAt >= 550,
          flushes: gatewayFlushes(),
        }).toEqual({ installation: installation.name, headersEarly: true, eventLate: true, flushes: 1 });

        // Headers and a keep-alive comment in one upstream packet, then the wait: the bytes were there, but nothing for
        // the client yet, so the headers still go out at once.
        upstream.next({ firstEventDelayMs: 600, preamble: ': PROCESSING\n\n' });
        const commented = await rawStream(installation);
        const commentedHeadersAt = commented.find((read) => read.text.startsWith('HTTP/1.1 200'))?.atMs ?? Infinity;
        const commentedEventAt = commented.find((read) => read.text.includes('data: {'))?.atMs ?? Infinity;
        expect({ installation: installation.name, headersEarly: commentedHeadersAt < 400, eventLate: commentedEventAt >= 550 }).toEqual({
          installation: installation.name,
          headersEarly: true,
          eventLate: true,
        });

        // Every event in one upstream write: no headers on their own; the first write carries them with the first
        // event (one write, and one wake-up of the client, fewer per stream).
        flushedOn.length = 0;
        upstream.next({ oneWrite: true });
        const fast = await rawStream(installation);
        expect(fast.map((read) => read.text).join('')).toMatch(/^HTTP\/1\.1 200[\s\S]*\r\n\r\n[0-9a-f]+\r\ndata: \{[\s\S]*data: \[DONE\]/);
        expect({ installation: installation.name, flushes: gatewayFlushes() }).toEqual({ installation: installation.name, flushes: 0 });
      }
    } finally {
      spy.mockRestore();
    }
  });
});
