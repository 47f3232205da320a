import { Logger } from '@nestjs/common';
import type { EventEmitter } from 'node:events';

/** Errors that say the connection to Redis is down (a reconnect follows), not that a command was wrong. */
const CONNECTION_ERROR = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|Connection is closed/;

export function isRedisConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as NodeJS.ErrnoException).code ?? '';
  return CONNECTION_ERROR.test(code) || CONNECTION_ERROR.test(error.message);
}

/**
 * One line when Redis becomes unreachable and one when it is back, for every Redis connection of the process (ours,
 * and BullMQ's queues and workers). Each connection reports an error for every failed reconnect attempt: without a
 * listener ioredis printed "[ioredis] Unhandled error event" and BullMQ a stack trace for each, about 700 of them
 * from one worker process in a 3 s outage. Other errors (a script or a command refused) are logged each time.
 */
export class RedisOutageLog {
  private downSince: number | null = null;
  private errorsWhileDown = 0;

  constructor(
    private readonly logger: Pick<Logger, 'warn' | 'log' | 'error'> = new Logger('Redis'),
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether the process currently believes Redis unreachable (tests). */
  get down(): boolean {
    return this.downSince !== null;
  }

  error(source: string, error: unknown): void {
    if (!isRedisConnectionError(error)) {
      this.logger.error(`${source}: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    if (this.downSince !== null) {
      this.errorsWhileDown++;
      return;
    }
    this.downSince = this.now();
    this.errorsWhileDown = 1;
    this.logger.warn(
      `Redis unreachable (${source}: ${(error as Error).message}); reconnecting. Its connection errors are counted, not logged, until it is back`,
    );
  }

  /**
   * A connection's PING went unanswered for `silentMs` and its socket is being dropped (RedisLivenessWatch): an
   * outage like a refused connection, said once, its reconnect attempts then counted like theirs.
   */
  unresponsive(source: string, silentMs: number): void {
    if (this.downSince !== null) {
      this.errorsWhileDown++;
      return;
    }
    this.downSince = this.now() - silentMs;
    this.errorsWhileDown = 1;
    this.logger.warn(
      `Redis unresponsive (${source}: no answer to PING for ${(silentMs / 1000).toFixed(1)} s); reconnecting. Its connection errors are counted, not logged, until it is back`,
    );
  }

  /** A connection is ready: the outage, if there was one, is over. */
  ready(): void {
    if (this.downSince === null) return;
    const seconds = ((this.now() - this.downSince) / 1000).toFixed(1);
    this.logger.log(`Redis reachable again after ${seconds} s (${this.errorsWhileDown} connection errors meanwhile)`);
    this.downSince = null;
    this.errorsWhileDown = 0;
  }

  /** Reports `connection`'s errors and readiness here (an ioredis client, a BullMQ queue or worker). */
  watch(connection: EventEmitter, source: string): void {
    connection.on('error', (error: unknown) => this.error(source, error));
    connection.on('ready', () => this.ready());
  }
}

/** The process's one outage log: every Redis connection reports to it. */
export const redisOutageLog = new RedisOutageLog();
