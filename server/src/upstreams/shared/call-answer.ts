import type { UpstreamCallAnswer, UpstreamCallBody } from '../upstream-adapter';

/** A whole answer already in hand (an SDK's reply, a WebSocket's collected frames) as the relay reads an HTTP answer. */
export function answerFromBytes(status: number, contentType: string, bytes: Uint8Array | string): UpstreamCallAnswer {
  const buffer = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let taken = false;
  const body: UpstreamCallBody = {
    bytes: () => Promise.resolve(buffer),
    destroy: () => {
      taken = true;
    },
    ready: () => true,
    async *[Symbol.asyncIterator]() {
      if (taken) return;
      taken = true;
      if (buffer.length > 0) yield buffer;
    },
  };
  return { status, contentType, headers: { 'content-type': contentType }, body };
}

/**
 * A body fed by a producer (an SDK's event stream, WebSocket frames): `push` bytes, then `end()` or `fail(error)`.
 * `onDestroy` stops the producer when the relay stops reading (a client that went away).
 */
export class PushedBody implements UpstreamCallBody {
  private readonly chunks: Buffer[] = [];
  private ended = false;
  private failure: Error | null = null;
  private wake: (() => void) | null = null;
  private closed = false;

  constructor(private readonly onDestroy: () => void = () => undefined) {}

  push(chunk: Uint8Array | string): void {
    if (this.closed) return;
    this.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
    this.notify();
  }

  end(): void {
    this.ended = true;
    this.notify();
  }

  fail(error: Error): void {
    if (this.ended) return;
    this.failure = error;
    this.notify();
  }

  ready(): boolean {
    return this.chunks.length > 0 || this.ended || this.failure !== null;
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
    return Buffer.concat(this.chunks.splice(0));
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        const chunk = this.chunks.shift();
        if (chunk !== undefined) {
          yield chunk;
          continue;
        }
        if (this.failure) throw this.failure;
        if (this.ended) return;
        await this.settled();
      }
    } finally {
      if (!this.ended && !this.failure) this.destroy();
    }
  }

  destroy(error?: Error): void {
    if (this.closed) return;
    this.closed = true;
    this.chunks.length = 0;
    if (this.ended || this.failure) return;
    this.failure = error ?? new Error('upstream call closed');
    this.onDestroy();
    this.notify();
  }
}
