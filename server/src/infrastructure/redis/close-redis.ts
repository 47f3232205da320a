import type Redis from 'ioredis';

/**
 * How long a stopping process waits for Redis: for the commands already issued on a connection that is up, and for a
 * Redis that is away before it goes without what it still had to say there (the settles of charges already in the
 * ledger, the free part of its quota blocks, channel outcome counts): leases run out instead, as after a crash.
 */
export const SHUTDOWN_REDIS_WAIT_MS = 1_000;

/**
 * Closes an ioredis connection at shutdown without hanging on a Redis that is away. While the connection is ready,
 * QUIT lets the commands already issued finish first, for at most `waitMs`. While it is not (Redis gone, or between
 * two reconnect attempts) nothing more can be said: it is disconnected at once. A QUIT there would be queued behind
 * the commands waiting for Redis (a client with maxRetriesPerRequest: null keeps them until Redis is back, which may be
 * never) and kept the process from exiting.
 */
export async function closeRedis(connection: Redis, waitMs = SHUTDOWN_REDIS_WAIT_MS): Promise<void> {
  if (connection.status === 'end') return;
  if (connection.status !== 'ready') {
    connection.disconnect();
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const quit = await Promise.race([
    connection.quit().then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), waitMs))),
  ]);
  clearTimeout(timer);
  // Only when QUIT did not go through: after it, the server closes the socket, and ioredis's disconnect() would arm
  // a 2 s timer that waits for a 'close' already emitted (it kept a stopping process, and jest's workers, alive).
  if (!quit && (connection.status as string) !== 'end') connection.disconnect();
}
