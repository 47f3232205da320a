import { Inject, Injectable, type OnModuleDestroy, Optional } from '@nestjs/common';
import { Agent, type Dispatcher, errors as undiciErrors } from 'undici';
import { APP_CONFIG, type AppConfig, CONFIG_DEFAULTS } from '../../config/app-config';
import type { UpstreamRequest } from '../../upstreams/upstream-adapter';
import type { RelaySignal } from '../http/client-gone-signal';

export interface UpstreamCallOptions {
  /** Total time allowed for the answer headers (RELAY_TIMEOUT; 0: none). */
  headersTimeoutMs: number;
  /** Longest silence between body chunks (STREAMING_TIMEOUT). */
  bodyTimeoutMs: number;
  /** The client going away. Before the request is written to the upstream's socket it aborts the call at once. */
  signal?: RelaySignal;
  /**
   * Once the request is written (the upstream has it and works on it), what `signal` does: undefined, abort at
   * once; a number, keep the call going (the reader reads on) for at most that many milliseconds, then abort it with
   * DrainExpiredError (0: abort now, with that error). RELAY_DRAIN_AFTER_CLIENT_GONE_MS.
   */
  drainAfterClientGoneMs?: number;
}

export interface UpstreamAnswerBody extends AsyncIterable<Buffer> {
  /** The whole body (waits for its end); rejects if it broke off. */
  bytes(): Promise<Buffer>;
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
  /** Stops reading and closes the upstream request (no-op once the body ended). */
  destroy(error?: Error): void;
  /** Whether bytes (or the end) already arrived that no reader has taken yet: a read now would not wait. */
  ready(): boolean;
}

export interface UpstreamAnswer {
  status: number;
  contentType: string;
  headers: Record<string, string | string[] | undefined>;
  body: UpstreamAnswerBody;
}

/** The upstream could not be reached or its answer broke off; the relay answers 500 do_request_failed. */
export class UpstreamTransportError extends Error {
  constructor(readonly cause: unknown) {
    super(`upstream request failed: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'UpstreamTransportError';
  }
}

/**
 * The call was aborted because its client left after the upstream had the request and the drain bound
 * (RELAY_DRAIN_AFTER_CLIENT_GONE_MS) ran out: the upstream may have done the work. Before the headers it is the
 * `cause` of an UpstreamTransportError; after them the body's reader gets it.
 */
export class DrainExpiredError extends Error {
  constructor(readonly drainMs: number) {
    super(`client gone; upstream answer not finished ${drainMs} ms later`);
    this.name = 'DrainExpiredError';
  }
}

/** Whether `error` (a body's, or an UpstreamTransportError's cause) is the end of a drain. */
export function isDrainExpired(error: unknown): boolean {
  return error instanceof DrainExpiredError || (error instanceof UpstreamTransportError && error.cause instanceof DrainExpiredError);
}

export function isBodyTimeout(error: unknown): boolean {
  return error instanceof undiciErrors.BodyTimeoutError;
}

/** Bytes queued for a reader that iterates before undici is asked to stop reading the socket (back-pressure). */
const HIGH_WATER_MARK = 64 * 1024;

/**
 * An upstream answer's body, fed by undici's dispatch handler. Read it whole (`bytes()`: chunks are kept as they
 * come and joined once) or iterate it (chunks as they arrive; past HIGH_WATER_MARK unread bytes the socket is
 * paused until the reader catches up).
 */
class UpstreamBody implements UpstreamAnswerBody {
  private readonly chunks: Buffer[] = [];
  private queued = 0;
  private ended = false;
  private failure: Error | null = null;
  private wake: (() => void) | null = null;
  private iterating = false;
  private closed = false;

  constructor(private readonly controller: Dispatcher.DispatchController) {}

  push(chunk: Buffer): void {
    if (this.closed) return;
    this.chunks.push(chunk);
    this.queued += chunk.length;
    if (this.iterating && this.queued > HIGH_WATER_MARK && !this.controller.paused) this.controller.pause();
    this.notify();
  }

  end(): void {
    this.ended = true;
    this.notify();
  }

  ready(): boolean {
    return this.chunks.length > 0 || this.ended || this.failure !== null;
  }

  fail(error: Error): void {
    if (this.ended) return;
    this.failure = error;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private settled(): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  async bytes(): Promise<Buffer> {
    while (!this.ended && !this.failure) await this.settled();
    if (this.failure) throw this.failure;
    const chunks = this.chunks.splice(0);
    this.queued = 0;
    return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  }

  async text(): Promise<string> {
    return (await this.bytes()).toString('utf8');
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    this.iterating = true;
    try {
      for (;;) {
        const chunk = this.chunks.shift();
        if (chunk !== undefined) {
          this.queued -= chunk.length;
          if (this.controller.paused && this.queued <= HIGH_WATER_MARK / 2) this.controller.resume();
          yield chunk;
          continue;
        }
        if (this.failure) throw this.failure;
        if (this.ended) return;
        await this.settled();
      }
    } finally {
      // A reader that stops early (break, an error in its loop) closes the request, as a Readable would.
      if (!this.ended && !this.failure) this.destroy();
    }
  }

  destroy(error?: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.chunks.length = 0;
    this.queued = 0;
    if (this.ended || this.failure) return;
    const reason = error ?? new undiciErrors.RequestAbortedError();
    this.failure = reason;
    if (!this.controller.aborted) this.controller.abort(reason);
    this.notify();
  }
}

/**
 * One upstream call as an undici dispatch handler: resolves with the answer once its headers arrived, then feeds
 * the body. It does what `undici.request()` did for the relay, without what the relay does not use (an
 * AsyncResource and a Node Readable per request, an AbortSignal wiring of its own): about half the CPU per call
 * (docs/benchmark.md). Errors before the headers reject with UpstreamTransportError; after them they reach the
 * body's reader (undici's own error classes, so a body timeout is still `isBodyTimeout`).
 */
class UpstreamCall implements Dispatcher.DispatchHandler {
  private body: UpstreamBody | null = null;
  private controller: Dispatcher.DispatchController | null = null;
  private abortedBefore: Error | null = null;
  private done = false;
  private drainTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly onAbort = () => this.clientGone();

  constructor(
    private readonly resolve: (answer: UpstreamAnswer) => void,
    private readonly reject: (error: unknown) => void,
    private readonly signal: RelaySignal | undefined,
    private readonly drainMs: number | undefined,
  ) {
    if (signal) {
      if (signal.aborted) this.abortedBefore = new undiciErrors.RequestAbortedError();
      else signal.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  /**
   * The client left. A request not yet written (still queued or connecting: `onRequestStart` not called) never
   * reaches the upstream: abort now. One the upstream has: read on for the drain bound, then abort.
   */
  private clientGone(): void {
    if (this.done) return;
    const drainMs = this.drainMs;
    if (this.controller === null || drainMs === undefined) {
      this.abort(new undiciErrors.RequestAbortedError());
      return;
    }
    this.drainTimer = setTimeout(() => this.abort(new DrainExpiredError(drainMs)), drainMs);
  }

  private abort(reason: Error): void {
    if (this.done) return;
    if (this.controller) {
      if (!this.controller.aborted) this.controller.abort(reason);
    } else {
      this.abortedBefore = reason;
    }
  }

  private finish(): void {
    this.done = true;
    this.signal?.removeEventListener('abort', this.onAbort);
    if (this.drainTimer !== null) clearTimeout(this.drainTimer);
  }

  /**
   * undici calls this on a connected socket right before it writes the request (client-h1 `writeH1`: `onConnect`,
   * then the write; a JSON body goes out in the same call). A refused or failed connection never gets here: from
   * here on the upstream has the request.
   */
  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.abortedBefore) controller.abort(this.abortedBefore);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    const contentType = headers['content-type'];
    this.body = new UpstreamBody(controller);
    this.resolve({
      status: statusCode,
      contentType: Array.isArray(contentType) ? (contentType[0] ?? '') : (contentType ?? ''),
      headers,
      body: this.body,
    });
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.body?.push(chunk);
  }

  onResponseEnd(): void {
    this.finish();
    this.body?.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.finish();
    if (this.body) this.body.fail(error);
    else this.reject(new UpstreamTransportError(error));
  }
}

/**
 * Pooled keep-alive HTTP/1.1 to upstreams (undici: one pool per origin inside one Agent). Streams are read
 * chunk by chunk as they arrive, with back-pressure when the relay stops reading.
 */
@Injectable()
export class UpstreamHttpClient implements OnModuleDestroy {
  private readonly agent: Agent;

  constructor(
    /** Absent in specs that build the client by hand: the defaults. */
    @Optional() @Inject(APP_CONFIG) config: Pick<AppConfig, 'UPSTREAM_KEEPALIVE_MS' | 'UPSTREAM_MAX_CONNECTIONS'> | null = null,
  ) {
    const { UPSTREAM_KEEPALIVE_MS: keepAliveMs, UPSTREAM_MAX_CONNECTIONS: connections } = config ?? CONFIG_DEFAULTS;
    this.agent = new Agent({
      // An idle upstream socket is closed after UPSTREAM_KEEPALIVE_MS (default 20 s), however long the upstream's
      // Keep-Alive header offers: after a burst of 1,000 streams, 1,000 idle sockets held ~50 MB for the minute
      // Node-style upstreams offer. A busy relay keeps its sockets busy; a quiet one pays a new connection.
      keepAliveTimeout: keepAliveMs,
      keepAliveMaxTimeout: keepAliveMs,
      // Per origin. Model answers are long-lived streams: a small cap queues whole requests behind each other
      // (1,000 concurrent streams to one provider need 1,000 sockets). UPSTREAM_MAX_CONNECTIONS, default 4096.
      connections,
      pipelining: 1,
    });
  }

  send(upstream: UpstreamRequest, options: UpstreamCallOptions): Promise<UpstreamAnswer> {
    return new Promise<UpstreamAnswer>((resolve, reject) => {
      const call = new UpstreamCall(resolve, reject, options.signal, options.drainAfterClientGoneMs);
      try {
        this.agent.dispatch(
          {
            origin: upstream.origin,
            path: upstream.path,
            method: upstream.method,
            headers: upstream.headers,
            body: upstream.body,
            headersTimeout: options.headersTimeoutMs,
            bodyTimeout: options.bodyTimeoutMs,
          },
          call,
        );
      } catch (error) {
        reject(new UpstreamTransportError(error));
      }
    });
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.close().catch(() => undefined);
  }
}
