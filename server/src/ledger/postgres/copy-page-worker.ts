import { Worker } from 'node:worker_threads';

/**
 * Reads the bytes of `COPY … TO STDOUT` statements on a worker thread with a connection of its own: the rebuild's
 * page reader (PostgresEventStore.readAllInBulk), which decodes them on the calling thread. On that thread the read
 * of page n+1 stalled while page n was folded: a fold keeps the event loop busy, nobody takes the bytes out of the
 * socket, and Postgres stops sending (measured: 5.3 s of a million-event rebuild spent waiting for pages). On its own
 * thread the read goes on, and the page arrives whole, handed over without a copy (a transferred ArrayBuffer).
 *
 * Like a pool, the worker connects again after its connection broke (a Postgres restart, a terminated backend) and
 * after a failed connect, so a long-lived process's later rebuilds do not inherit the failure; the store replaces a
 * reader whose thread ended.
 *
 * The worker's code is plain JavaScript given as a string, so it runs the same in a compiled build and in the specs;
 * it loads `pg` and `pg-copy-streams` from the paths this module resolves.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { Client } = require(workerData.pg);
const { to: copyTo } = require(workerData.pgCopyStreams);

// The connection, opened at the first read and again after it broke (a Postgres restart, a terminated backend).
let current = null;
// Set by the close request: no read starts, retries or answers after it.
let closing = false;
// Reads run one at a time on the one connection (pg would queue them anyway, and deprecates being asked to).
let queue = Promise.resolve();
let reading = false;
function open() {
  const client = new Client({ connectionString: workerData.connectionString });
  const connection = { client, broken: false, ready: null };
  client.on('error', () => (connection.broken = true));
  client.on('end', () => (connection.broken = true));
  connection.ready = client.connect();
  return connection;
}

async function bytesOf(client, sql) {
  const chunks = [];
  let length = 0;
  for await (const chunk of client.query(copyTo(sql))) {
    chunks.push(chunk);
    length += chunk.length;
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}

// Whether a failed read leaves the connection usable: only when Postgres refused the statement itself (an ERROR).
// A FATAL or PANIC (a terminated backend, a shutdown) or an error from below the protocol (a reset, a closed socket)
// means the connection is gone, whether or not its 'error' or 'end' event has been seen yet: that answer can reach
// the read before the events do.
function leftUsable(connection, error) {
  return !connection.broken && error !== null && typeof error === 'object' && error.severity === 'ERROR';
}

// A read that failed because the connection broke is tried once more on a new one (a COPY TO only reads).
async function read(sql) {
  for (let attempt = 0; ; attempt++) {
    current ??= open();
    const connection = current;
    try {
      await connection.ready;
    } catch (error) {
      current = null; // not reachable now: the next read connects again
      throw error;
    }
    try {
      return await bytesOf(connection.client, sql);
    } catch (error) {
      if (leftUsable(connection, error)) throw error; // Postgres refused the statement; the connection is fine
      if (current === connection) current = null;
      connection.client.end().catch(() => undefined);
      if (attempt > 0 || closing) throw error;
    }
  }
}

async function serve(request) {
  if (closing) return; // the calling thread rejected it when it asked to close
  reading = true;
  try {
    const bytes = await read(request.sql);
    if (!closing) parentPort.postMessage({ id: request.id, bytes }, [bytes.buffer]);
  } catch (error) {
    if (!closing) parentPort.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) });
  } finally {
    reading = false;
  }
}

// Idle, a clean goodbye to Postgres (Terminate). With a read in flight, its socket is closed instead: Postgres reads
// a Terminate only once the statement is done, and the read is abandoned anyway. Then the thread ends by itself.
async function shutdown() {
  closing = true;
  const connection = current;
  current = null;
  if (connection && reading) connection.client.connection.stream.destroy();
  else if (connection) await connection.ready.then(() => connection.client.end(), () => undefined).catch(() => undefined);
  parentPort.close();
}

parentPort.on('message', (request) => {
  if (request.close) void shutdown();
  else queue = queue.then(() => serve(request));
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

  /** Whether reads can still be asked (not closed, the thread not ended). */
  get running(): boolean {
    return this.failure === null;
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
