import type { EventEmitter } from 'node:events';

/** An ioredis connection, as far as its readiness goes. */
export type RedisConnectionState = EventEmitter & { readonly status: string };

/**
 * The waits of whileReachable on one connection: one 'close' and one 'ready' listener per connection, whatever the
 * number of waits (a listener per wait passed EventEmitter's limit of 10 with a projector batch's concurrent pushes).
 */
interface Waits {
  readonly down: Set<() => void>;
  readonly up: Set<() => void>;
}

const waitsByConnection = new WeakMap<RedisConnectionState, Waits>();

function waitsOf(connection: RedisConnectionState): Waits {
  let waits = waitsByConnection.get(connection);
  if (!waits) {
    const created: Waits = { down: new Set(), up: new Set() };
    connection.on('close', () => {
      for (const down of [...created.down]) down();
    });
    connection.on('ready', () => {
      for (const up of [...created.up]) up();
    });
    waitsByConnection.set(connection, created);
    waits = created;
  }
  return waits;
}

/**
 * Waits for `work` (commands issued on `connection`) while the connection is up, and for the connection at most
 * `downMs` at a time while it is down: resolves true once the work settled (either way), false once the connection
 * stayed down for `downMs` (its commands then wait in ioredis's queue until it is back, which may be never). No
 * timer while the connection is up.
 */
export function whileReachable(connection: RedisConnectionState, work: Promise<unknown>, downMs: number): Promise<boolean> {
  const waits = waitsOf(connection);
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const finish = (done: boolean) => {
      clearTimeout(timer);
      waits.down.delete(down);
      waits.up.delete(up);
      resolve(done);
    };
    // A reconnecting client emits 'close' after every failed attempt: the wait runs from the first.
    const down = () => (timer ??= setTimeout(() => finish(false), downMs));
    const up = () => {
      clearTimeout(timer);
      timer = undefined;
    };
    waits.down.add(down);
    waits.up.add(up);
    if (connection.status !== 'ready') down();
    work.then(
      () => finish(true),
      () => finish(true),
    );
  });
}
