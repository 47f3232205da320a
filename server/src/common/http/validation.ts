import type { z } from 'zod';
import { DomainError, INVALID_PARAMS } from './errors';

/**
 * Parses a body or query with a zod schema. A value of the wrong shape is "无效的参数"; a field that breaks a
 * validation rule is "输入不合法 <detail>" as new-api's struct validation answers.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, options: { rules?: boolean } = {}): z.infer<S> {
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  if (!options.rules) throw new DomainError(INVALID_PARAMS, 'invalid_params');
  const issue = result.error.issues[0];
  const field = issue?.path.join('.') ?? '';
  throw new DomainError(`输入不合法 ${field ? `${field}: ` : ''}${issue?.message ?? ''}`.trim(), 'invalid_input');
}
