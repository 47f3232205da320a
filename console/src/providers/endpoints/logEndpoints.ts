import type { GetListResult } from 'react-admin';
import { getStoredUser } from '../../lib/storage';
import { ROLE_ADMIN } from '../../lib/types';
import { apiRequest, type QueryValue } from '../httpClient';
import type { ResourceEndpoints } from './types';

/** A log row as `GET /api/log/` answers it; `/api/log/self` answers `id` 0 and `other` without `admin_info`. */
export interface LogEntry {
  /** Unique in the list: the server's id for admins, the row's place in the page for the own list (whose ids are all 0). */
  id: number | string;
  user_id: number;
  created_at: number;
  type: number;
  content: string;
  username: string;
  token_name: string;
  model_name: string;
  quota: number;
  prompt_tokens: number;
  completion_tokens: number;
  use_time: number;
  is_stream: boolean;
  channel: number;
  token_id: number;
  group?: string;
  other: string;
}

export interface LogPage {
  items: LogEntry[] | null;
  total: number;
  page: number;
  page_size: number;
}

export interface LogStat {
  quota: number;
  rpm: number;
  tpm: number;
}

/** The log screen's filter form; times are the datetime inputs' local `YYYY-MM-DDTHH:mm[:ss]` text. */
export interface LogListFilter {
  type?: number | string;
  token_name?: string;
  model_name?: string;
  start?: string;
  end?: string;
  channel?: number | string;
  username?: string;
}

const isAdmin = () => (getStoredUser()?.role ?? 0) >= ROLE_ADMIN;

/** A local datetime input's text as unix seconds; empty or unreadable text is no bound (0). */
export const toTimestamp = (value: string | undefined): number => {
  if (!value) return 0;
  const millis = new Date(value).getTime();
  return Number.isFinite(millis) ? Math.floor(millis / 1000) : 0;
};

const trimmed = (value: unknown): string => (value === undefined || value === null ? '' : String(value).trim());

/**
 * The query of the list and stat routes for a filter. Admins send username and channel; the own routes ignore
 * username and the own list ignores channel, so a common user's query leaves both out.
 */
export const logQuery = (filter: LogListFilter, admin = isAdmin()): Record<string, QueryValue> => {
  const query: Record<string, QueryValue> = {
    type: Number(filter.type) || 0,
    token_name: trimmed(filter.token_name),
    model_name: trimmed(filter.model_name),
    start_timestamp: toTimestamp(filter.start),
    end_timestamp: toTimestamp(filter.end),
  };
  if (admin) {
    query.username = trimmed(filter.username);
    query.channel = Number.parseInt(trimmed(filter.channel), 10) || 0;
  }
  return query;
};

/** `GET /api/log/stat` (admin) or `/api/log/self/stat`: consumed quota in the range, requests and tokens of the last minute. */
export const fetchLogStat = (filter: LogListFilter): Promise<LogStat> =>
  apiRequest<LogStat>(isAdmin() ? '/api/log/stat' : '/api/log/self/stat', { query: logQuery(filter) });

/** How many rows a purge before `timestamp` would delete (`created_at < timestamp`): the admin list's total up to a second before. */
export const countLogsBefore = async (timestamp: number): Promise<number> => {
  const page = await apiRequest<LogPage>('/api/log/', { query: { end_timestamp: timestamp - 1, page_size: 0 } });
  return page.total;
};

/** `DELETE /api/log/?target_timestamp=`: deletes every row created before the timestamp; answers the count deleted. */
export const purgeLogsBefore = (timestamp: number): Promise<number> =>
  apiRequest<number>('/api/log/', { method: 'DELETE', query: { target_timestamp: timestamp } });

export const logEndpoints: ResourceEndpoints<LogEntry> = {
  /** Both lists are 1-based with a total, newest first; the page size is react-admin's (the own list caps it at 100). */
  async getList({ pagination, filter }): Promise<GetListResult<LogEntry>> {
    const page = pagination?.page ?? 1;
    const perPage = pagination?.perPage ?? 10;
    const admin = isAdmin();
    const answer = await apiRequest<LogPage>(admin ? '/api/log/' : '/api/log/self', {
      query: { ...logQuery((filter ?? {}) as LogListFilter, admin), p: page, page_size: perPage },
    });
    const items = answer.items ?? [];
    return {
      data: admin ? items : items.map((item, index) => ({ ...item, id: `${page}:${index}` })),
      total: answer.total,
    };
  },
};
