import { uuidV7 } from '../../ledger/event-ids';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { RELAY_NOSNIFF } from '../../common/http/security-headers';
import type { HttpMetrics } from '../../modules/metrics';
import type { RelayMode } from '../../upstreams/upstream-adapter';
import type { RelayPipelineService } from '../pipeline/relay-pipeline.service';
import { RelayError } from '../relay-error';
import { ClientGoneSignal } from './client-gone-signal';
import { RELAY_POST_ROUTES, relayHttpRequest, sendRelayError, splitUrl } from './relay-routes';

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;

export interface RelayFastPathOptions {
  pipeline: RelayPipelineService;
  /** Largest body accepted, in bytes (the server's bodyLimit); a larger one answers 413 like Fastify's parser. */
  bodyLimit: number;
  /** TRUST_PROXY: the client address is the leftmost X-Forwarded-For entry, as Fastify's `trustProxy: true` gives. */
  trustProxy: boolean;
  /** The HTTP request metrics, fed as Fastify's onResponse hook feeds them for every other route. */
  metrics: HttpMetrics | null;
}

/**
 * The static relay POST routes served straight from the HTTP server's `request` event, ahead of Fastify.
 *
 * Fastify is the console's framework; on the relay's hot path its per-request machinery is pure overhead: routing,
 * the request and reply objects, the onRequest hooks of the whole application (cookies, rate limit, CORS), the
 * content-type parser (which binds an AsyncResource per request through a deprecation wrapper) and the
 * onSend/onResponse hooks, about a tenth of the gateway's CPU per relayed request (docs/benchmark.md). This listener
 * does what those do for these routes, and nothing else:
 *
 * - the request id: always a new UUID, never the client's (relay charges derive their event id from it);
 * - `X-Content-Type-Options: nosniff`, the security header a JSON or SSE answer needs (Fastify's answers get helmet's);
 * - CORS as relayCorsHook does it for non-preflight requests (an Origin header gets the two allow headers);
 * - the body read as raw bytes with Fastify's limits and answers: Content-Length over the limit or a body that grows
 *   past it is 413 `无效的请求, http: request body too large`, a body shorter than its Content-Length or a broken
 *   one 400, in the relay's error shape; no body at all (no Content-Length, no Transfer-Encoding, or a zero length)
 *   is `null`, as the Fastify route saw it;
 * - the client address (TRUST_PROXY: the leftmost X-Forwarded-For entry);
 * - the request counter and duration histogram under the route's pattern.
 *
 * The relay has no rate limit (rate-limit-policy.ts), so none is skipped. Everything else goes to Fastify
 * unchanged: other methods (preflights), other paths (parameterised relay routes, /pg with its session check, the
 * console), a Content-Type other than JSON or multipart (Fastify's media-type validation answers those), and every
 * request once the server starts closing (Fastify answers 503 then).
 */
export class RelayFastPath {
  private readonly routes = new Map<string, RelayMode>(
    RELAY_POST_ROUTES.filter(([path]) => !path.includes(':')).map(([path, mode]) => [path, mode]),
  );
  private closing = false;
  /** Metric children by route and status: labels are resolved once, not per request. */
  private readonly counters = new Map<string, { inc(): void }>();
  private readonly timers = new Map<string, { observe(value: number): void }>();

  constructor(private readonly options: RelayFastPathOptions) {}

  /** Puts the listener in front of the server's own (Fastify's), which gets every request the fast path does not take. */
  install(server: Server): void {
    const listeners = server.listeners('request') as RequestListener[];
    if (listeners.length !== 1) throw new Error(`relay fast path: expected one request listener on the server, found ${listeners.length}`);
    const [fallback] = listeners;
    server.removeListener('request', fallback);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      if (this.closing || !this.take(request, response)) fallback.call(server, request, response);
    });
  }

  /** From now on every request goes to Fastify, which answers 503 while the server closes. */
  close(): void {
    this.closing = true;
  }

  /** The route's mode when this request is the fast path's to serve. */
  routeOf(request: IncomingMessage): { path: string; pattern: string; mode: RelayMode } | null {
    if (request.method !== 'POST') return null;
    const { path } = splitUrl(request.url ?? '/');
    // Fastify's ignoreTrailingSlash: `/v1/chat/completions/` is the same route.
    const pattern = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const mode = this.routes.get(pattern);
    if (mode === undefined) return null;
    const contentType = request.headers['content-type'];
    if (contentType !== undefined && !SIMPLE_CONTENT_TYPE.test(contentType)) return null;
    return { path, pattern, mode };
  }

  private take(request: IncomingMessage, response: ServerResponse): boolean {
    const route = this.routeOf(request);
    if (!route) return false;
    const started = performance.now();
    const requestId = uuidV7();
    response.setHeader(RELAY_NOSNIFF[0], RELAY_NOSNIFF[1]);
    if (request.headers.origin) {
      response.setHeader('access-control-allow-origin', '*');
      response.setHeader('access-control-allow-credentials', 'true');
    }
    // One 'close' listener per request for both: the client-gone signal (an answer not finished) and the metrics.
    const signal = new ClientGoneSignal();
    const metered = this.options.metrics !== null;
    response.once('close', () => {
      if (!response.writableFinished) signal.abort();
      if (metered) this.observe(route.pattern, response.statusCode, performance.now() - started);
    });
    this.readBody(request, (error, body) => {
      if (error) {
        sendRelayError(response, requestId, error);
        return;
      }
      const input = relayHttpRequest(requestId, request.url ?? route.path, request.headers, this.clientIp(request), response, body, signal);
      this.options.pipeline.handle(input, response, route.mode).catch((failure: unknown) => {
        // handle() answers every error itself; this is the last resort if answering failed too.
        response.destroy(failure instanceof Error ? failure : new Error(String(failure)));
      });
    });
    return true;
  }

  private readBody(request: IncomingMessage, done: (error: RelayError | null, body: Buffer | null) => void): void {
    const { bodyLimit } = this.options;
    const lengthHeader = request.headers['content-length'];
    if (request.headers['transfer-encoding'] === undefined && (lengthHeader === undefined || lengthHeader === '0')) {
      request.resume();
      done(null, null);
      return;
    }
    const declared = Number(lengthHeader);
    if (declared > bodyLimit) {
      done(tooLarge(), null);
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (error: RelayError | null, body: Buffer | null) => {
      request.removeListener('data', onData);
      request.removeListener('end', onEnd);
      request.removeListener('error', onError);
      done(error, body);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > bodyLimit) {
        // Stop collecting; the stream keeps flowing, so what is left of the body is read and dropped.
        finish(tooLarge(), null);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      if (lengthHeader !== undefined && !Number.isNaN(declared) && received !== declared) {
        finish(new RelayError(400, '无效的请求, Request body size did not match Content-Length'), null);
        return;
      }
      finish(null, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received));
    };
    const onError = (error: Error) => finish(new RelayError(400, `无效的请求, ${error.message}`), null);
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
  }

  private clientIp(request: IncomingMessage): string {
    if (this.options.trustProxy) {
      const forwarded = request.headers['x-forwarded-for'];
      const first = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded)?.split(',')[0]?.trim();
      if (first) return first;
    }
    return request.socket.remoteAddress ?? '';
  }

  private observe(pattern: string, status: number, elapsedMs: number): void {
    const metrics = this.options.metrics!;
    const key = `${pattern} ${status}`;
    let counter = this.counters.get(key);
    if (!counter) {
      counter = metrics.requests.labels({ method: 'POST', route: pattern, status_code: String(status) });
      this.counters.set(key, counter);
    }
    counter.inc();
    let timer = this.timers.get(pattern);
    if (!timer) {
      timer = metrics.duration.labels({ method: 'POST', route: pattern });
      this.timers.set(pattern, timer);
    }
    timer.observe(elapsedMs / 1000);
  }
}

/** JSON and multipart bodies (with parameters); any other media type is left to Fastify's parser and its answers. */
const SIMPLE_CONTENT_TYPE = /^\s*(?:application\/json|multipart\/form-data)\s*(?:;[^\r\n]*)?$/i;

function tooLarge(): RelayError {
  return new RelayError(413, '无效的请求, http: request body too large');
}
