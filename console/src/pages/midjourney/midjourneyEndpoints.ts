import type { GetListParams, GetListResult } from 'react-admin';
import { getStoredUser } from '../../lib/storage';
import { ROLE_ADMIN } from '../../lib/types';
import { apiRequest, type QueryValue } from '../../providers/httpClient';
import type { ResourceEndpoints } from '../../providers/endpoints/types';

/** A drawing task as `GET /api/mj/` and `/api/mj/self` answer it (times in milliseconds). */
export interface MidjourneyTask {
  id: number;
  code: number;
  user_id: number;
  action: string;
  mj_id: string;
  prompt: string;
  prompt_en: string;
  description: string;
  state: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  image_url: string;
  status: string;
  progress: string;
  fail_reason: string;
  channel_id: number;
  quota: number;
}

/** The screen's filter form: times are the datetime inputs' local text. */
export interface MidjourneyFilter {
  channel_id?: string | number;
  mj_id?: string;
  start?: string;
  end?: string;
}

/** The action types, statuses and submit codes the screen words (spec: "Drawing action types", "task status", "submit result code"). */
export const MJ_ACTIONS = [
  'IMAGINE',
  'UPSCALE',
  'VARIATION',
  'HIGH_VARIATION',
  'LOW_VARIATION',
  'PAN',
  'DESCRIBE',
  'BLEND',
  'UPLOAD',
  'SHORTEN',
  'REROLL',
  'INPAINT',
  'ZOOM',
  'CUSTOM_ZOOM',
  'MODAL',
  'SWAP_FACE',
] as const;
export const MJ_STATUSES = ['SUCCESS', 'NOT_START', 'SUBMITTED', 'IN_PROGRESS', 'FAILURE', 'MODAL'] as const;
export const MJ_CODES = [1, 21, 22, 0] as const;

const isAdmin = () => (getStoredUser()?.role ?? 0) >= ROLE_ADMIN;

/** A local datetime input's text as milliseconds (the drawing lists filter submit_time in ms); empty is no bound. */
export const toMillis = (value: string | undefined): number | undefined => {
  if (!value) return undefined;
  const millis = new Date(value).getTime();
  return Number.isFinite(millis) ? millis : undefined;
};

export const midjourneyQuery = (filter: MidjourneyFilter, admin: boolean): Record<string, QueryValue> => {
  const query: Record<string, QueryValue> = {
    mj_id: (filter.mj_id ?? '').trim() || undefined,
    start_timestamp: toMillis(filter.start),
    end_timestamp: toMillis(filter.end),
  };
  const channel = String(filter.channel_id ?? '').trim();
  if (admin && channel !== '') query.channel_id = channel;
  return query;
};

/** The `midjourney` resource: 0-based pages with no total (a bare array), newest first; admins list every task. */
export const midjourneyEndpoints: ResourceEndpoints<MidjourneyTask> = {
  async getList({ pagination, filter }: GetListParams): Promise<GetListResult<MidjourneyTask>> {
    const page = pagination?.page ?? 1;
    const perPage = Math.min(pagination?.perPage ?? 10, 100);
    const admin = isAdmin();
    const rows = await apiRequest<MidjourneyTask[]>(admin ? '/api/mj/' : '/api/mj/self', {
      query: { ...midjourneyQuery((filter ?? {}) as MidjourneyFilter, admin), p: page - 1, page_size: perPage },
    });
    return { data: rows ?? [], pageInfo: { hasPreviousPage: page > 1, hasNextPage: (rows ?? []).length === perPage } };
  },
};
