import { type BeforeApplicationShutdown, Logger } from '@nestjs/common';
import type { WorkerHost } from '@nestjs/bullmq';
import type { Worker } from 'bullmq';
import { answersPing, type Pingable } from '../infrastructure/redis/redis-liveness';

/** How long a shutdown waits for a worker's Redis connections to be back (BullMQ reconnects at most every second). */
export const WORKER_RECONNECT_WAIT_MS = 1_500;

const POLL_MS = 50;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * True once both of the worker's Redis connections (its commands and its blocking BZPOPMIN) are `ready` and the
 * command connection answers a PING, false when they are not by `waitMs` (Redis gone, still in a reconnect's backoff,
 * or frozen: a stopped server or a partition leaves the status 'ready' and answers nothing, and a graceful close then
 * waited for its commands as long as Redis stayed frozen, since ioredis resends them after a reconnect rather than
 * failing them).
 */
export async function workerConnectionsReady(worker: Worker, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  const backend = worker.getBackend();
  const connections = [backend.connection, backend.blockingConnection].filter((connection) => connection !== undefined);
  const initialised = Promise.all(connections.map((connection) => connection.client));
  // The wait's timer is cleared as soon as the clients are there: left pending, it kept a closed process (and Jest
  // after every spec of a whole application) alive for another 1.5 s.
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), waitMs)));
  const clients = await Promise.race([initialised, timeout]).finally(() => clearTimeout(timer));
  if (!clients) {
    initialised.catch(() => undefined);
    return false;
  }
  for (;;) {
    if (clients.every((client) => client.status === 'ready')) {
      // The command connection: the blocking one is busy with its BZPOPMIN.
      return answersPing(clients[0] as unknown as Pingable, Math.max(POLL_MS, deadline - Date.now()));
    }
    if (Date.now() >= deadline) return false;
    await sleep(POLL_MS);
  }
}

/**
 * Closes a BullMQ worker without hanging on a connection that is between two reconnects. A graceful close
 * (`worker.close()`: it waits for the job in progress) first disconnects the blocking connection and waits for its
 * `end` event; an ioredis client disconnected while `reconnecting` (socket gone, retry timer pending) clears its
 * timer but never emits `end` (redis/ioredis#1247), so that close never resolved and SIGTERM left the process
 * running after Redis had been restarted. Such a worker is force-closed instead: its current job is not awaited
 * (without Redis it could not be completed anyway; its lock expires and the job runs again as stalled).
 */
export async function closeWorker(worker: Worker, waitMs = WORKER_RECONNECT_WAIT_MS): Promise<'graceful' | 'forced'> {
  if (worker.closing) {
    await worker.closing;
    return 'graceful';
  }
  const ready = await workerConnectionsReady(worker, waitMs);
  await worker.close(!ready);
  return ready ? 'graceful' : 'forced';
}

/**
 * Closes every queue consumer before @nestjs/bullmq's own shutdown hook (onApplicationShutdown, which calls
 * `worker.close()` on each and would wait forever for a blocking connection parked in `reconnecting`); that hook
 * then finds them closed.
 */
export class WorkerShutdown implements BeforeApplicationShutdown {
  private readonly logger = new Logger(WorkerShutdown.name);

  constructor(private readonly hosts: readonly WorkerHost[]) {}

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(
      this.hosts.map(async (host) => {
        const worker = host.worker;
        if (!worker) return;
        try {
          const how = await closeWorker(worker);
          if (how === 'forced')
            this.logger.warn(`queue worker ${worker.name}: Redis not ready, closed without waiting for its current job`);
        } catch (error) {
          this.logger.warn(`queue worker ${worker.name} did not close cleanly: ${(error as Error).message}`);
        }
      }),
    );
  }
}
