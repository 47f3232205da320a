/**
 * Reading the log routes' query strings the way new-api does, and turning filters into SQL. Numbers go through
 * Go's strconv: anything that does not parse is 0 ("no filter"), an out-of-range number is clamped. No query
 * string can make a query fail: text with NUL matches nothing, LIKE has no escape character, numbers are
 * compared as bigint.
 */

/** new-api's ItemsPerPage. */
export const ITEMS_PER_PAGE = 10;
/** `/api/log/self` caps page_size at 100 (as new-api). */
export const SELF_MAX_PAGE_SIZE = 100;
/** `/api/log/` has no cap in new-api; one is set here so a single call cannot load the whole table. */
export const ADMIN_MAX_PAGE_SIZE = 1000;
/** The legacy search routes answer the newest 100 rows (MaxRecentItems). */
export const SEARCH_LIMIT = 100;
/** Keeps (p − 1) × page_size far inside safe integers. */
const MAX_PAGE = 100_000_000;

/** One query parameter as Go's `c.Query` reads it: the first value, or "" when absent or not a string. */
export function queryText(query: unknown, name: string): string {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : '';
}

/**
 * Go's `strconv.Atoi`/`ParseInt(s, 10, 64)` with the error ignored, as new-api's handlers call them: an
 * optional sign and decimal digits, else 0; out of range clamps (here to the safe-integer range).
 */
export function goInt(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) return 0;
  const value = Number(text);
  if (Number.isSafeInteger(value)) return value;
  return value < 0 ? Number.MIN_SAFE_INTEGER : Number.MAX_SAFE_INTEGER;
}

/**
 * `target_timestamp` of DELETE /api/log/: decimal digits (optional sign) within the safe integers, else 0, which
 * the purge refuses as "target timestamp is required". Unlike goInt nothing saturates: new-api's ParseInt
 * turned an out-of-range number into the largest int64 and purged every row; here it is refused.
 */
export function targetTimestamp(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) return 0;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : 0;
}

export interface LogFilters {
  /** 0: every type. */
  type: number;
  username: string;
  tokenName: string;
  /** Compared with LIKE and no wildcards added (as new-api), so `%` in it is a wildcard. */
  modelName: string;
  group: string;
  /** Unix seconds, inclusive; 0: unbounded. */
  startTimestamp: number;
  endTimestamp: number;
  /** Channel id; 0: any. */
  channel: number;
}

export type LogScope = { kind: 'all' } | { kind: 'self'; userId: number };

export interface Paging {
  page: number;
  pageSize: number;
}

/**
 * Every filter of the log list and stat routes, from a query string. `username` and `channel` are read only where
 * new-api reads them: both on the admin routes; the own-log list takes neither (its rows are the caller's,
 * by user id), the own stat takes `channel`.
 */
export function parseFilters(query: unknown, accepts: { username: boolean; channel: boolean }): LogFilters {
  return {
    type: goInt(queryText(query, 'type')),
    username: accepts.username ? queryText(query, 'username') : '',
    tokenName: queryText(query, 'token_name'),
    modelName: queryText(query, 'model_name'),
    group: queryText(query, 'group'),
    startTimestamp: goInt(queryText(query, 'start_timestamp')),
    endTimestamp: goInt(queryText(query, 'end_timestamp')),
    channel: accepts.channel ? goInt(queryText(query, 'channel')) : 0,
  };
}

/** 1-based `p` (below 1 → 1) and `page_size` (negative → 10; 0 → an empty page; capped). */
export function parsePaging(query: unknown, scope: LogScope): Paging {
  const page = Math.min(Math.max(goInt(queryText(query, 'p')), 1), MAX_PAGE);
  let pageSize = goInt(queryText(query, 'page_size'));
  if (pageSize < 0) pageSize = ITEMS_PER_PAGE;
  pageSize = Math.min(pageSize, scope.kind === 'self' ? SELF_MAX_PAGE_SIZE : ADMIN_MAX_PAGE_SIZE);
  return { page, pageSize };
}

/** A WHERE clause under construction: conditions joined by AND, parameters numbered in order. */
export class SqlWhere {
  readonly conditions: string[] = [];
  readonly params: unknown[] = [];
  /** Set when a filter can match no row (text with NUL); the query is then not run at all. */
  impossible = false;

  add(condition: (param: string) => string, value: unknown): this {
    this.params.push(value);
    this.conditions.push(condition(`$${this.params.length}`));
    return this;
  }

  text(condition: (param: string) => string, value: string): this {
    if (value.includes('\u0000')) this.impossible = true;
    return this.add(condition, value);
  }

  get sql(): string {
    return this.conditions.length ? `WHERE ${this.conditions.join(' AND ')}` : '';
  }
}

export interface FilterOptions {
  /** Apply the type filter (the stat routes ignore it and count type 2 only). */
  type: boolean;
  /** Apply start/end (the rpm/tpm part of the stat ignores them). */
  timeRange: boolean;
}

/** new-api's filter set (GetAllLogs / GetUserLogs / SumUsedQuota), plus the group filter. */
export function filterWhere(filters: LogFilters, scope: LogScope, options: FilterOptions = { type: true, timeRange: true }): SqlWhere {
  const where = new SqlWhere();
  if (scope.kind === 'self') where.add((p) => `user_id = ${p}::bigint`, scope.userId);
  if (options.type && filters.type !== 0) where.add((p) => `type = ${p}::bigint`, filters.type);
  if (filters.modelName) where.text((p) => `model_name LIKE ${p} ESCAPE ''`, filters.modelName);
  if (filters.username) where.text((p) => `username = ${p}`, filters.username);
  if (filters.tokenName) where.text((p) => `token_name = ${p}`, filters.tokenName);
  if (filters.group) where.text((p) => `"group" = ${p}`, filters.group);
  if (options.timeRange && filters.startTimestamp !== 0) where.add((p) => `created_at >= ${p}::bigint`, filters.startTimestamp);
  if (options.timeRange && filters.endTimestamp !== 0) where.add((p) => `created_at <= ${p}::bigint`, filters.endTimestamp);
  if (filters.channel !== 0) where.add((p) => `channel_id = ${p}::bigint`, filters.channel);
  return where;
}
