import { type RedisConnectionState, whileReachable } from '../../infrastructure/redis/redis-reachable';

export { SHUTDOWN_REDIS_WAIT_MS } from '../../infrastructure/redis/close-redis';

/**
 * Admission needed Redis and admission's connection stayed down for RELAY_ADMISSION_REDIS_WAIT_MS: the request is
 * refused, with nothing reserved for it and no command queued (see QuotaAdmissionService.reserveBounded).
 */
export class AdmissionUnavailableError extends Error {
  constructor(waitedMs: number) {
    super(`quota admission: Redis unreachable for ${waitedMs} ms`);
  }
}

/**
 * Whether admission's connection is up, and a bounded wait for it while it is down. While it is up (the common
 * case) the check is a field read: no timer, no promise per request. Waiters are woken together by the
 * connection's next 'ready'.
 */
export class RedisReadiness {
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly redis: RedisConnectionState,
    readonly waitMs: number,
  ) {
    redis.on('ready', () => {
      for (const wake of this.waiters) wake();
      this.waiters.clear();
    });
  }

  get ready(): boolean {
    return this.redis.status === 'ready';
  }

  /** Resolves at the connection's next 'ready'; rejects with AdmissionUnavailableError after `waitMs`. */
  waitReady(): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        reject(new AdmissionUnavailableError(this.waitMs));
      }, this.waitMs);
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.add(wake);
    });
  }

  /**
   * Waits for `work` (commands issued on the connection) while the connection is up, and for the connection at most
   * `downMs` at a time while it is down (whileReachable, infrastructure/redis/redis-reachable.ts).
   */
  whileReachable(work: Promise<unknown>, downMs = this.waitMs): Promise<boolean> {
    return whileReachable(this.redis, work, downMs);
  }
}
