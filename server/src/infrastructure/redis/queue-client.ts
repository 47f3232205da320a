import type { Queue } from 'bullmq';
import type { RedisConnectionState } from './redis-reachable';

/** A BullMQ queue's Redis client, as far as its readiness and a PING go. */
export type QueueClient = RedisConnectionState & { ping(): Promise<string> };

/**
 * The queue's Redis client if BullMQ has made it, else null (Redis away since the start): initialised already, it is
 * there before the next turn of the event loop. (Raced against a resolved promise instead, the client lost by the
 * one microtask its .catch() adds, and every queue counted as away.)
 */
export async function queueClient(queue: Queue): Promise<QueueClient | null> {
  let timer: NodeJS.Immediate | undefined;
  const client = await Promise.race([
    queue
      .getBackend()
      .connection.client.then((made) => made as unknown as QueueClient)
      .catch(() => null),
    new Promise<null>((resolve) => (timer = setImmediate(() => resolve(null)))),
  ]);
  clearImmediate(timer);
  return client;
}
