import type { FastifyRequest } from 'fastify';
import { z } from 'zod';

/** Who and where a command comes from, for event metadata and logs. */
export interface RequestContext {
  /** The request id (X-Oneapi-Request-Id), used as the correlation id of any event the command causes. */
  correlationId: string;
  clientIp: string | null;
}

export function requestContext(request: FastifyRequest): RequestContext {
  return { correlationId: String(request.id), clientIp: request.ip ?? null };
}

/**
 * One query parameter as Go's `c.Query` reads it: the first value, or "" when absent. Anything that is not a
 * string (a nested object from a custom parser) counts as absent.
 */
export function queryParam(query: unknown, name: string): string {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : '';
}

/**
 * A JSON string field as Go decodes it into a `string`: absent or null is "", any other type fails the
 * decode ("无效的参数"). NUL characters are refused too: Postgres cannot store them in text.
 */
export const jsonString = z
  .string()
  .nullish()
  .transform((value) => value ?? '')
  .refine((value) => !value.includes('\u0000'));
