import type Redis from 'ioredis';
import { redisOutageLog } from './redis-outage-log';

/** What the watch needs of an ioredis client (a fake in the unit spec). */
export type WatchedConnection = Pick<Redis, 'status' | 'ping' | 'once'> & { readonly stream?: { destroy(): void } | null };

/** What the watch reports to (the process's RedisOutageLog). */
export interface UnresponsiveReport {
  unresponsive(source: string, silentMs: number): void;
}

/**
 * Turns a Redis that stops answering without closing its connection into a connection that is down.
 *
 * A frozen or stopped redis-server, or a partition that drops packets, leaves the socket open: ioredis's status
 * stays 'ready' and every command waits for a reply that does not come. Every bound of this codebase for a Redis that
 * is away starts from the status (admission's RELAY_ADMISSION_REDIS_WAIT_MS, whileReachable, the token cache's
 * Postgres fallback, the console's 503s, the shutdown's SHUTDOWN_REDIS_WAIT_MS), so none of them started and a
 * request, a console write or a SIGTERM waited as long as Redis was frozen.
 *
 * While the connection is ready the watch keeps one PING out, a new one once the last was answered, checked every
 * `tickMs`. A PING unanswered for `timeoutMs` (REDIS_UNRESPONSIVE_MS), and through as many ticks as that many ms
 * hold, destroys the socket: ioredis emits 'close' and reconnects as after any drop, and the bounds above apply from
 * there. The reconnect to a frozen server does not get past its ready check (the TCP handshake is the kernel's, the
 * INFO is never answered), so the connection stays down until the server answers again; commands that were waiting
 * are resent then, as after any drop. One PING per connection per tick costs Redis nothing measurable, and no
 * request waits for it. (ioredis's own `socketTimeout` counts only while a command waits: an idle connection, such as
 * the subscriber, would never be checked, and the first request after a freeze would pay the whole timeout.)
 *
 * Not for a connection that runs blocking commands: a BullMQ worker's BZPOPMIN would keep a PING waiting behind it
 * for its whole timeout (QueueErrors watches a worker's command connection only).
 */
export class RedisLivenessWatch {
  private probeSince: number | null = null;
  /** Ticks that found the probe still out; the verdict needs ticksNeeded of them as well as timeoutMs. */
  private ticksOut = 0;
  private readonly ticksNeeded: number;
  /** Bumped whenever a probe is given up, so that a late answer to it does not end the next one. */
  private generation = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly connection: WatchedConnection,
    private readonly source: string,
    private readonly timeoutMs: number,
    private readonly report: UnresponsiveReport = redisOutageLog,
    private readonly now: () => number = Date.now,
    tickMs = Math.max(10, Math.min(1_000, Math.floor(timeoutMs / 4))),
  ) {
    // Wall time alone would take an event loop that stalled past the timeout (CPU starvation, a long collection) for
    // a frozen Redis: the timer can run before the PONG already in the socket is read. Ticks only come one per turn
    // of the loop, with the socket's reads in between.
    this.ticksNeeded = Math.max(1, Math.ceil(timeoutMs / tickMs));
    this.timer = setInterval(() => this.check(), tickMs);
    this.timer.unref();
    // 'end': closed for good (quit, disconnect, or no more reconnect attempts).
    connection.once('end', () => this.stop());
  }

  check(): void {
    // Closed for good without an 'end' event: BullMQ sets 'end' itself after its close, and ioredis emits none for a
    // client disconnected while reconnecting (ioredis#1247).
    if (this.connection.status === 'end') {
      this.stop();
      return;
    }
    if (this.connection.status !== 'ready') {
      this.giveUpProbe();
      return;
    }
    if (this.probeSince === null) {
      this.probeSince = this.now();
      this.ticksOut = 0;
      const generation = this.generation;
      const answered = () => {
        if (generation === this.generation) this.probeSince = null;
      };
      // A refused PING (a connection error) is an answer for this purpose: the status then says the rest.
      this.connection.ping().then(answered, answered);
      return;
    }
    this.ticksOut++;
    const silentMs = this.now() - this.probeSince;
    if (silentMs < this.timeoutMs || this.ticksOut < this.ticksNeeded) return;
    this.giveUpProbe();
    this.report.unresponsive(this.source, silentMs);
    // destroy(), not disconnect(true): ioredis's disconnect ends the socket and waits 2 s for a close that a frozen
    // peer never sends before it destroys it.
    this.connection.stream?.destroy();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private giveUpProbe(): void {
    if (this.probeSince === null) return;
    this.probeSince = null;
    this.generation++;
  }
}

/**
 * Watches `connection` (see RedisLivenessWatch) unless `timeoutMs` is 0; returns it. The watch ends with the
 * connection.
 */
export function watchLiveness<T extends WatchedConnection>(connection: T, source: string, timeoutMs: number): T {
  if (timeoutMs > 0) new RedisLivenessWatch(connection, source, timeoutMs);
  return connection;
}

export type Pingable = { ping(): Promise<string> };

/**
 * Whether `client` answers a PING within `waitMs`. A stopping process asks before it leaves a connection to a graceful
 * close: a frozen Redis (or one not yet dropped by its watch) leaves the status 'ready', and a graceful close waits for
 * commands that ioredis resends after a reconnect instead of failing them, for as long as Redis stays frozen.
 */
export async function answersPing(client: Pingable, waitMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const answered = await Promise.race([
    client.ping().then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), waitMs))),
  ]);
  clearTimeout(timer);
  return answered;
}
