import { type RedisConnectionState, whileReachable } from '../../infrastructure/redis/redis-reachable';

/** Socket-level failures to reach a server (Postgres or Redis refused, reset, unreachable, timed out). */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

/**
 * Postgres refusing work for the whole server rather than for one statement: SQLSTATE class 08 (connection
 * exception), 57P01-57P03 (shut down, crash, cannot connect now) and 53300 (too many connections).
 */
function isPostgresUnavailableCode(code: string): boolean {
  return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300';
}

/**
 * Whether an error means a store the console needs (Postgres, Redis) cannot be reached at all, as opposed to a
 * bug or a bad statement: the console answers those 503 "try again", not 500 "panic".
 */
/**
 * Thrown by a request's own code when it knows the store is away before it asks (an ioredis connection that is not
 * ready: a command would wait in its queue for as long as Redis is gone). Answered as the other unavailable errors.
 */
export class StoreNotReadyError extends Error {
  constructor(store: string) {
    super(`${store} connection not ready`);
  }
}

/**
 * `work()` on a Redis connection a console request waits for: StoreNotReadyError at once while the connection is down
 * (its commands would wait in ioredis's queue for as long as Redis is gone, and the request with them), or once it has
 * been down `downMs` with the work sent (it dropped, or froze and its liveness watch dropped it). The console answers
 * either with its 503.
 */
export async function requireRedis<T>(connection: RedisConnectionState, work: () => Promise<T>, downMs = 1_000): Promise<T> {
  if (connection.status !== 'ready') throw new StoreNotReadyError('Redis');
  const done = work();
  if (!(await whileReachable(connection, done, downMs))) throw new StoreNotReadyError('Redis');
  return done;
}

export function isStorageUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 3) return false;
  if (error instanceof StoreNotReadyError) return true;
  const candidate = error as { code?: unknown; message?: unknown; driverError?: unknown; errors?: unknown; cause?: unknown };
  const code = typeof candidate.code === 'string' ? candidate.code : '';
  if (SOCKET_CODES.has(code) || (code.length === 5 && isPostgresUnavailableCode(code))) return true;
  const message = typeof candidate.message === 'string' ? candidate.message : '';
  // node-postgres: a connection lost or never made within its timeout; Postgres: a database closed to connections.
  if (/^Connection terminated\b|is not currently accepting connections|^timeout exceeded when trying to connect/.test(message)) return true;
  // ioredis: the connection is gone and the command was not sent.
  if (/^Connection is closed\.|^Stream isn't writeable|Reached the max retries per request limit|^Command timed out/.test(message))
    return true;
  if (isStorageUnavailable(candidate.driverError, depth + 1) || isStorageUnavailable(candidate.cause, depth + 1)) return true;
  return Array.isArray(candidate.errors) && candidate.errors.some((inner) => isStorageUnavailable(inner, depth + 1));
}

export const STORAGE_UNAVAILABLE_MESSAGE = '服务暂时不可用：数据库或缓存无法连接，请稍后重试';
