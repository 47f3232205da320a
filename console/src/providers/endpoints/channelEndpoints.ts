import type { GetListResult } from 'react-admin';
import { apiFetch, apiRequest } from '../httpClient';
import type { ResourceEndpoints } from './types';

/** A channel as `GET /api/channel/` answers it (the key is always blank once saved). */
export interface Channel {
  id: number;
  type: number;
  key: string;
  openai_organization: string | null;
  test_model: string | null;
  status: number;
  name: string;
  weight: number;
  created_time: number;
  test_time: number;
  response_time: number;
  base_url: string;
  other: string;
  balance: number;
  balance_updated_time: number;
  models: string;
  group: string;
  used_quota: number;
  model_mapping: string;
  status_code_mapping: string;
  priority: number;
  auto_ban: number;
  other_info: string;
}

export const CHANNEL_STATUS_ENABLED = 1;
export const CHANNEL_STATUS_DISABLED = 2;
export const CHANNEL_STATUS_AUTO_DISABLED = 3;

export interface ChannelListFilter {
  keyword?: string;
  group?: string;
  model?: string;
  id_sort?: boolean;
}

const isSearch = (filter: ChannelListFilter): boolean => Boolean(filter.keyword?.trim() || filter.group || filter.model?.trim());

/** Search answers every match at once (priority order, or id order), so paging is local and the total is known. */
export const searchChannels = async (filter: ChannelListFilter): Promise<Channel[]> =>
  (await apiRequest<Channel[] | null>('/api/channel/search', {
    query: {
      keyword: filter.keyword?.trim() ?? '',
      group: filter.group ?? '',
      model: filter.model?.trim() ?? '',
      id_sort: filter.id_sort ? 'true' : undefined,
    },
  })) ?? [];

/** The plain list pages on the server (`p` 0-based, `page_size`) without a total: partial pagination until the last page. */
const listChannels = async (page: number, perPage: number, idSort: boolean): Promise<GetListResult<Channel>> => {
  const data =
    (await apiRequest<Channel[] | null>('/api/channel/', {
      query: { p: page - 1, page_size: perPage, id_sort: idSort ? 'true' : undefined },
    })) ?? [];
  // A short page is the last one, so the total is known; a full page may have more after it.
  if (data.length < perPage) return { data, total: (page - 1) * perPage + data.length };
  return { data, pageInfo: { hasNextPage: true, hasPreviousPage: page > 1 } };
};

/** `PUT /api/channel/` with only the fields to change; answers the channel as saved. */
export const patchChannel = async (id: number, fields: Record<string, unknown>): Promise<Channel> =>
  apiRequest<Channel>('/api/channel/', { method: 'PUT', body: { id, ...fields } });

/** `GET /api/channel/test/:id?model=`: the seconds taken, or the upstream's complaint as an error. */
export const testChannel = async (id: number, model?: string): Promise<number> => {
  const answer = await apiFetch(`/api/channel/test/${id}`, { query: { model: model || undefined } });
  return Number((answer as { time?: unknown }).time ?? 0);
};

/** `GET /api/channel/update_balance/:id`: the balance in USD. */
export const updateChannelBalance = async (id: number): Promise<number> => {
  const answer = await apiFetch(`/api/channel/update_balance/${id}`);
  return Number((answer as { balance?: unknown }).balance ?? 0);
};

/** `POST /api/channel/copy/:id`: a copy named with "_复制" (the server holds the key the list never shows). */
export const copyChannel = async (id: number): Promise<number> =>
  (await apiRequest<{ id: number }>(`/api/channel/copy/${id}`, { method: 'POST' })).id;

export const deleteChannels = async (ids: number[]): Promise<number> =>
  (await apiRequest<number>('/api/channel/batch', { method: 'POST', body: { ids } })) ?? 0;

export const deleteDisabledChannels = async (): Promise<number> =>
  (await apiRequest<number>('/api/channel/disabled', { method: 'DELETE' })) ?? 0;

export const fixChannelAbilities = async (): Promise<number> => (await apiRequest<number>('/api/channel/fix', { method: 'POST' })) ?? 0;

/** `GET /api/channel/test`: queues a test of every channel; answers how many were queued. */
export const startTestAllChannels = async (): Promise<{ queued: number }> => ({
  queued: (await apiRequest<{ queued?: number } | null>('/api/channel/test'))?.queued ?? 0,
});

/** `GET /api/channel/update_balance`: queues a balance query of every enabled channel that has one; answers how many. */
export const startUpdateAllBalances = async (): Promise<{ queued: number }> => ({
  queued: (await apiRequest<{ queued?: number } | null>('/api/channel/update_balance'))?.queued ?? 0,
});

/** The models a saved channel's upstream lists (its stored key), or those an upstream lists for a typed key. */
export const fetchUpstreamModels = async (source: { id: number } | { type: number; base_url: string; key: string }): Promise<string[]> =>
  'id' in source
    ? ((await apiRequest<string[] | null>(`/api/channel/fetch_models/${source.id}`)) ?? [])
    : ((await apiRequest<string[] | null>('/api/channel/fetch_models', { method: 'POST', body: source })) ?? []);

/** `GET /api/models`: each channel type's built-in model list. */
export const modelsByType = async (): Promise<Record<string, string[]>> =>
  (await apiRequest<Record<string, string[]> | null>('/api/models')) ?? {};

export const channelEndpoints: ResourceEndpoints<Channel> = {
  async getList({ pagination, filter }) {
    const page = pagination?.page ?? 1;
    const perPage = pagination?.perPage ?? 10;
    const channelFilter = (filter ?? {}) as ChannelListFilter;
    if (!isSearch(channelFilter)) return listChannels(page, perPage, Boolean(channelFilter.id_sort));
    const found = await searchChannels(channelFilter);
    const start = (page - 1) * perPage;
    return { data: found.slice(start, start + perPage), total: found.length };
  },

  async getOne({ id }) {
    return { data: await apiRequest<Channel>(`/api/channel/${encodeURIComponent(String(id))}`) };
  },

  /** The server answers creation without data (and may make one channel per key line); the body stands in. */
  async create({ data }) {
    await apiRequest('/api/channel/', { method: 'POST', body: data });
    return { data: { ...data, id: `new:${String(data.name)}` } as unknown as Channel };
  },

  async update({ id, data }) {
    return { data: await patchChannel(Number(id), data as Record<string, unknown>) };
  },

  async delete({ id, previousData }) {
    await apiRequest(`/api/channel/${encodeURIComponent(String(id))}`, { method: 'DELETE' });
    return { data: previousData as Channel };
  },
};
