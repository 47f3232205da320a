import type { GetListParams, GetListResult } from 'react-admin';
import { getStoredUser } from '../../lib/storage';
import { ROLE_ADMIN } from '../../lib/types';
import { apiRequest, type QueryValue } from '../../providers/httpClient';
import type { ResourceEndpoints } from '../../providers/endpoints/types';

/** An async task as `GET /api/task/` and `/api/task/self` answer it (times in seconds; no channel on the self list). */
export interface AsyncTask {
  id: number;
  created_at: number;
  updated_at: number;
  task_id: string;
  platform: string;
  user_id: number;
  channel_id?: number;
  quota: number;
  action: string;
  status: string;
  fail_reason: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  progress: string;
  properties: unknown;
  data: unknown;
}

/** The screen's filter form: times are the datetime inputs' local text. */
export interface TaskFilter {
  channel_id?: string | number;
  task_id?: string;
  start?: string;
  end?: string;
}

/** The platforms, actions and statuses the screen words (spec 2, "Async task"). */
export const TASK_PLATFORMS = ['suno'] as const;
export const TASK_ACTIONS = ['MUSIC', 'LYRICS'] as const;
export const TASK_STATUSES = ['SUCCESS', 'NOT_START', 'SUBMITTED', 'IN_PROGRESS', 'FAILURE', 'QUEUED', 'UNKNOWN'] as const;

const isAdmin = () => (getStoredUser()?.role ?? 0) >= ROLE_ADMIN;

/** A local datetime input's text as seconds (the task lists filter submit_time in seconds); empty is no bound. */
export const toSeconds = (value: string | undefined): number | undefined => {
  if (!value) return undefined;
  const millis = new Date(value).getTime();
  return Number.isFinite(millis) ? Math.floor(millis / 1000) : undefined;
};

/** The start of today as a datetime input's local text (the default start: spec 2, "async tasks from the start of today"). */
export const startOfToday = (): string => {
  const now = new Date();
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}T00:00`;
};

export const taskQuery = (filter: TaskFilter, admin: boolean): Record<string, QueryValue> => {
  const query: Record<string, QueryValue> = {
    task_id: (filter.task_id ?? '').trim() || undefined,
    start_timestamp: toSeconds(filter.start),
    end_timestamp: toSeconds(filter.end),
  };
  const channel = String(filter.channel_id ?? '').trim();
  if (admin && channel !== '') query.channel_id = channel;
  return query;
};

/** The `task` resource: 0-based pages with no total (a bare array), newest first; admins list every task. */
export const taskEndpoints: ResourceEndpoints<AsyncTask> = {
  async getList({ pagination, filter }: GetListParams): Promise<GetListResult<AsyncTask>> {
    const page = pagination?.page ?? 1;
    const perPage = Math.min(pagination?.perPage ?? 10, 100);
    const admin = isAdmin();
    const rows = await apiRequest<AsyncTask[]>(admin ? '/api/task/' : '/api/task/self', {
      query: { ...taskQuery((filter ?? {}) as TaskFilter, admin), p: page - 1, page_size: perPage },
    });
    return { data: rows ?? [], pageInfo: { hasPreviousPage: page > 1, hasNextPage: (rows ?? []).length === perPage } };
  },
};
