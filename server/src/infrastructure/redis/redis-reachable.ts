import type { EventEmitter } from 'node:events';

/** An ioredis connection, as far as its readiness goes. */
export type RedisConnectionState = EventEmitter & { readonly status: string };

/**
 * Waits for `work` (commands issued on `connection`) while the connection is up, and for the connection at most
 * `downMs` at a time while it is down: resolves true once the work settled (either way), false once the connection
 * stayed down for `downMs` (its commands then wait in ioredis's queue until it is back, which may be never). No
 * timer while the connection is up; listeners go with the answer.
 */
export function whileReachable(connection: RedisConnectionState, work: Promise<unknown>, downMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const finish = (done: boolean) => {
      clearTimeout(timer);
      connection.off('ready', up);
      connection.off('close', down);
      resolve(done);
    };
    // A reconnecting client emits 'close' after every failed attempt: the wait runs from the first.
    const down = () => (timer ??= setTimeout(() => finish(false), downMs));
    const up = () => {
      clearTimeout(timer);
      timer = undefined;
    };
    connection.on('ready', up);
    connection.on('close', down);
    if (connection.status !== 'ready') down();
    work.then(
      () => finish(true),
      () => finish(true),
    );
  });
}
