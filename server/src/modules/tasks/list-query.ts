import { InvalidParamsError } from '../../common/http/errors';
import { parseGoInt, queryText } from '../users/user-input';

export const TASKS_PER_PAGE = 10;
export const MAX_TASKS_PER_PAGE = 100;

/** An optional integer query parameter; malformed or out of range: "无效的参数". */
export function optionalInteger(query: unknown, name: string, ok: (value: number) => boolean): number | undefined {
  const text = queryText(query, name).trim();
  if (text === '') return undefined;
  const value = parseGoInt(text);
  if (value === null || !ok(value)) throw new InvalidParamsError();
  return value;
}

/** The task lists' page: `p` (0-based, default 0) and `page_size` (1..100, default 10). */
export function listPage(query: unknown): { offset: number; limit: number } {
  const page = optionalInteger(query, 'p', (value) => value >= 0 && value <= 1_000_000) ?? 0;
  const limit = optionalInteger(query, 'page_size', (value) => value >= 1 && value <= MAX_TASKS_PER_PAGE) ?? TASKS_PER_PAGE;
  return { offset: page * limit, limit };
}
