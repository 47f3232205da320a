import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Agent, errors as undiciErrors, request } from 'undici';
import type { UpstreamRequest } from '../../upstreams/upstream-adapter';

export interface UpstreamCallOptions {
  /** Total time allowed for the answer headers (RELAY_TIMEOUT; 0: none). */
  headersTimeoutMs: number;
  /** Longest silence between body chunks (STREAMING_TIMEOUT). */
  bodyTimeoutMs: number;
  signal?: AbortSignal;
}

export interface UpstreamAnswer {
  status: number;
  contentType: string;
  headers: Record<string, string | string[] | undefined>;
  body: AsyncIterable<Buffer> & { text(): Promise<string>; arrayBuffer(): Promise<ArrayBuffer>; destroy(error?: Error): unknown };
}

/** The upstream could not be reached or its answer broke off; the relay answers 500 do_request_failed. */
export class UpstreamTransportError extends Error {
  constructor(readonly cause: unknown) {
    super(`upstream request failed: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'UpstreamTransportError';
  }
}

export function isBodyTimeout(error: unknown): boolean {
  return error instanceof undiciErrors.BodyTimeoutError;
}

/**
 * Pooled keep-alive HTTP/1.1 to upstreams (undici: one pool per origin inside one Agent). Streams are read
 * chunk by chunk as they arrive; undici applies back-pressure when the relay stops reading.
 */
@Injectable()
export class UpstreamHttpClient implements OnModuleDestroy {
  private readonly agent = new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 300_000,
    // Per origin. Model answers are long-lived streams: a small cap queues whole requests behind each other
    // (1,000 concurrent streams to one provider need 1,000 sockets). UPSTREAM_MAX_CONNECTIONS, default 4096.
    connections: Number(process.env.UPSTREAM_MAX_CONNECTIONS ?? 4096),
    pipelining: 1,
  });

  async send(upstream: UpstreamRequest, options: UpstreamCallOptions): Promise<UpstreamAnswer> {
    try {
      const answer = await request(upstream.url, {
        dispatcher: this.agent,
        method: upstream.method,
        headers: upstream.headers,
        body: upstream.body,
        headersTimeout: options.headersTimeoutMs,
        bodyTimeout: options.bodyTimeoutMs,
        signal: options.signal,
      });
      const contentType = answer.headers['content-type'];
      return {
        status: answer.statusCode,
        contentType: Array.isArray(contentType) ? (contentType[0] ?? '') : (contentType ?? ''),
        headers: answer.headers,
        body: answer.body as unknown as UpstreamAnswer['body'],
      };
    } catch (error) {
      throw new UpstreamTransportError(error);
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.close().catch(() => undefined);
  }
}
