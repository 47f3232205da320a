import { Worker } from 'node:worker_threads';

/**
 * Reads the bytes of `COPY … TO STDOUT` statements on a worker thread with a connection of its own: the rebuild's
 * page reader (PostgresEventStore.readAllInBulk), which decodes them on the calling thread. On that thread the read
 * of page n+1 stalled while page n was folded: a fold keeps the event loop busy, nobody takes the bytes out of the
 * socket, and Postgres stops sending (measured: 5.3 s of a million-event rebuild spent waiting for pages). On its own
 * thread the read goes on, and the page arrives whole, handed over without a copy (a transferred ArrayBuffer).
 *
 * The worker's code is plain JavaScript given as a string, so it runs the same in a compiled build and in the specs;
 * it loads `pg` and `pg-copy-streams` from the paths this module resolves.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { Client } = require(workerData.pg);
const { to: copyTo } = require(workerData.pgCopyStreams);
const client = new Client({ connectionString: workerData.connectionString });
client.on('error', () => undefined); // a lost connection fails the request in flight; the next one reports it too
const connected = client.connect();
parentPort.on('message', async (request) => {
  if (request.close) {
    // A clean goodbye to Postgres (Terminate), then the thread ends by itself: nothing else holds it open.
    await connected.catch(() => undefined);
    await client.end().catch(() => undefined);
    parentPort.close();
    return;
  }
  try {
    await connected;
    const chunks = [];
    let length = 0;
    for await (const chunk of client.query(copyTo(request.sql))) {
      chunks.push(chunk);
      length += chunk.length;
    }
    const bytes = new Uint8Array(length);
    let at = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
    parentPort.postMessage({ id: request.id, bytes }, [bytes.buffer]);
  } catch (error) {
    parentPort.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) });
  }
});
`;

interface Reply {
  id: number;
  bytes?: Uint8Array;
  error?: string;
}

export class CopyPageWorker {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (bytes: Buffer) => void; reject: (error: Error) => void }>();
  private nextId = 0;
  private failure: Error | null = null;
  private closed = false;
  /** Resolves when the thread has ended, however it ended. */
  private readonly exited: Promise<void>;

  constructor(connectionString: string) {
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { connectionString, pg: require.resolve('pg'), pgCopyStreams: require.resolve('pg-copy-streams') },
    });
    // Kept alive only while a read is pending (see copy): an idle reader never holds the process open.
    this.worker.unref();
    this.worker.on('message', (reply: Reply) => this.settle(reply));
    this.worker.on('error', (error: Error) => this.fail(new Error(`the ledger page reader failed: ${error.message}`)));
    this.exited = new Promise((resolve) => {
      this.worker.once('exit', (code: number) => {
        this.fail(new Error(`the ledger page reader stopped (exit code ${code})`));
        resolve();
      });
    });
  }

  /** The bytes `sql` (a `COPY … TO STDOUT` statement) sends; rejects with Postgres's message when it fails. */
  copy(sql: string): Promise<Buffer> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<Buffer>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) this.worker.ref();
      this.worker.postMessage({ id, sql });
    });
  }

  /**
   * Stops the worker: it ends its connection (a Terminate message, a read in flight abandoned) and its thread ends;
   * after `graceMs` the thread is stopped regardless. A read still pending is rejected.
   */
  async close(graceMs = 2000): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.fail(new Error('the ledger page reader is closed'));
    this.worker.ref();
    this.worker.postMessage({ close: true });
    const timer = setTimeout(() => void this.worker.terminate(), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  private settle(reply: Reply): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if (reply.bytes) waiting.resolve(Buffer.from(reply.bytes.buffer, reply.bytes.byteOffset, reply.bytes.byteLength));
    else waiting.reject(new Error(reply.error ?? 'the ledger page reader gave no bytes'));
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiting of this.pending.values()) waiting.reject(this.failure);
    this.pending.clear();
  }
}
