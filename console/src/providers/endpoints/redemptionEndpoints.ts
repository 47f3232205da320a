import type { GetListResult } from 'react-admin';
import type { Redemption, RedemptionBatch } from '../../lib/types';
import { apiRequest } from '../httpClient';
import type { ResourceEndpoints } from './types';

/** `GET /api/redemption/?p=` answers fixed pages of 10, 0-based, newest first, as a bare array. */
export const REDEMPTION_SERVER_PAGE_SIZE = 10;

export interface RedemptionListFilter {
  keyword?: string;
}

const toInteger = (value: unknown): number => {
  const parsed = typeof value === 'number' ? value : Number.parseInt(String(value ?? '0'), 10);
  return Number.isFinite(parsed) ? Math.trunc(parsed) : 0;
};

/** Search (an id or a name prefix) answers every match at once, so paging is local and the total is known. */
const searchRedemptions = async (keyword: string, page: number, perPage: number): Promise<GetListResult<Redemption>> => {
  const found = (await apiRequest<Redemption[] | null>('/api/redemption/search', { query: { keyword } })) ?? [];
  const start = (page - 1) * perPage;
  return { data: found.slice(start, start + perPage), total: found.length };
};

/** The plain list has no total: partial pagination, reading server pages until a short one. */
const listRedemptions = async (page: number, perPage: number): Promise<GetListResult<Redemption>> => {
  const start = (page - 1) * perPage;
  const end = start + perPage;
  const firstServerPage = Math.floor(start / REDEMPTION_SERVER_PAGE_SIZE);
  const lastServerPage = Math.floor((end - 1) / REDEMPTION_SERVER_PAGE_SIZE);
  const rows: Redemption[] = [];
  let lastPageFull = false;
  for (let serverPage = firstServerPage; serverPage <= lastServerPage; serverPage++) {
    const batch = (await apiRequest<Redemption[] | null>('/api/redemption/', { query: { p: serverPage } })) ?? [];
    rows.push(...batch);
    lastPageFull = batch.length === REDEMPTION_SERVER_PAGE_SIZE;
    if (!lastPageFull) break;
  }
  const offset = start - firstServerPage * REDEMPTION_SERVER_PAGE_SIZE;
  const data = rows.slice(offset, offset + perPage);
  return {
    data,
    pageInfo: { hasNextPage: lastPageFull && data.length === perPage, hasPreviousPage: page > 1 },
  };
};

/** `PUT /api/redemption/?status_only=true`: 1 enables, 2 disables. */
export const setRedemptionStatus = async (id: number, status: number): Promise<Redemption> =>
  apiRequest<Redemption>('/api/redemption/', { method: 'PUT', query: { status_only: 'true' }, body: { id, status } });

export const redemptionEndpoints: ResourceEndpoints<Redemption> = {
  async getList({ pagination, filter }) {
    const page = pagination?.page ?? 1;
    const perPage = pagination?.perPage ?? REDEMPTION_SERVER_PAGE_SIZE;
    const keyword = ((filter ?? {}) as RedemptionListFilter).keyword?.trim() ?? '';
    return keyword ? searchRedemptions(keyword, page, perPage) : listRedemptions(page, perPage);
  },

  async getOne({ id }) {
    return { data: await apiRequest<Redemption>(`/api/redemption/${encodeURIComponent(String(id))}`) };
  },

  /** The server answers the new keys; the batch stands in as the created record so the screen can offer them. */
  async create({ data }) {
    const name = String(data.name ?? '');
    const quota = toInteger(data.quota);
    const keys =
      (await apiRequest<string[] | null>('/api/redemption/', {
        method: 'POST',
        body: { name, quota, count: toInteger(data.count) },
      })) ?? [];
    const batch: RedemptionBatch = { id: `batch:${keys[0] ?? name}`, name, quota, keys };
    return { data: batch as unknown as Redemption };
  },

  async update({ id, data, previousData }) {
    const body = { id: Number(id), name: String(data.name ?? ''), quota: toInteger(data.quota) };
    const updated = await apiRequest<Redemption | null>('/api/redemption/', { method: 'PUT', body });
    return { data: { ...previousData, ...body, ...(updated ?? {}) } as Redemption };
  },

  async delete({ id, previousData }) {
    await apiRequest(`/api/redemption/${encodeURIComponent(String(id))}`, { method: 'DELETE' });
    return { data: previousData as Redemption };
  },
};
