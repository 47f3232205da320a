import { STATEMENT_KINDS } from '#projections/read-models/statement/statement-line';
import { StatementParamError } from './statement.errors';

/** Lines a page holds when `page_size` is absent. */
export const DEFAULT_PAGE_SIZE = 10;
/** The most lines one page may ask for (the CSV export has no page: it streams every line). */
export const MAX_PAGE_SIZE = 100;
/** Keeps (p − 1) × page_size far inside safe integers. */
const MAX_PAGE = 10_000_000;

export type StatementFormat = 'json' | 'csv';

export interface StatementFilters {
  /** Unix seconds, inclusive; null: unbounded. */
  startTimestamp: number | null;
  endTimestamp: number | null;
  /** One of STATEMENT_KINDS, or null for every kind. */
  kind: string | null;
}

export interface StatementRequest {
  filters: StatementFilters;
  page: number;
  pageSize: number;
  format: StatementFormat;
}

/** One query parameter: its text, or '' when absent; a repeated parameter is refused (which one would count?). */
export function queryText(query: unknown, name: string): string {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  if (value === undefined) return '';
  if (typeof value !== 'string') throw new StatementParamError(`无效的参数 ${name}：只能给出一次`);
  return value;
}

/** A whole number in [min, max] written in decimal digits, or `fallback` when the parameter is absent or empty. */
function integerParam(query: unknown, name: string, min: number, max: number, fallback: number | null): number | null {
  const text = queryText(query, name).trim();
  if (text === '') return fallback;
  const value = /^\d{1,16}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new StatementParamError(`无效的参数 ${name}：必须是 ${min} 到 ${max} 之间的整数`);
  }
  return value;
}

/**
 * The statement routes' query string, checked strictly (unlike the log routes, which read numbers as new-api's Atoi
 * and turn garbage into 0): a page that is not a number, a page size above MAX_PAGE_SIZE, an unknown kind, a start
 * after the end or an unknown format is refused with a message naming the parameter.
 */
export function parseStatementRequest(query: unknown): StatementRequest {
  const page = integerParam(query, 'p', 1, MAX_PAGE, 1)!;
  const pageSize = integerParam(query, 'page_size', 1, MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE)!;
  const startTimestamp = integerParam(query, 'start_timestamp', 0, Number.MAX_SAFE_INTEGER, null);
  const endTimestamp = integerParam(query, 'end_timestamp', 0, Number.MAX_SAFE_INTEGER, null);
  if (startTimestamp !== null && endTimestamp !== null && startTimestamp > endTimestamp) {
    throw new StatementParamError('无效的参数：start_timestamp 不能晚于 end_timestamp');
  }
  const kindText = queryText(query, 'kind').trim();
  if (kindText !== '' && !STATEMENT_KINDS.includes(kindText)) {
    throw new StatementParamError(`无效的参数 kind：只能是 ${STATEMENT_KINDS.join('、')} 之一`);
  }
  const formatText = queryText(query, 'format').trim();
  if (formatText !== '' && formatText !== 'json' && formatText !== 'csv')
    throw new StatementParamError('无效的参数 format：只能是 json 或 csv');
  return {
    filters: { startTimestamp, endTimestamp, kind: kindText || null },
    page,
    pageSize,
    format: formatText === 'csv' ? 'csv' : 'json',
  };
}

/** `user_id` of the admin route: required, a positive whole number. */
export function parseUserId(query: unknown): number {
  const text = queryText(query, 'user_id').trim();
  if (text === '') throw new StatementParamError('无效的参数 user_id：必须给出用户 ID');
  return integerParam(query, 'user_id', 1, 2_147_483_647, null)!;
}
