import type { GetListResult } from 'react-admin';
import { apiRequest } from '../httpClient';
import type { ResourceEndpoints } from './types';

/** Token status: 1 enabled, 2 disabled, 3 expired, 4 exhausted. */
export const TOKEN_STATUS_ENABLED = 1;
export const TOKEN_STATUS_DISABLED = 2;
export const TOKEN_STATUS_EXPIRED = 3;
export const TOKEN_STATUS_EXHAUSTED = 4;

/** `expired_time` of a token that never expires. */
export const NEVER_EXPIRES = -1;

/** One API token as `/api/token/*` answers it; the key is stored and sent without `sk-`. */
export interface Token {
  id: number;
  user_id: number;
  key: string;
  status: number;
  name: string;
  created_time: number;
  accessed_time: number;
  /** Unix seconds, or -1 for never. */
  expired_time: number;
  remain_quota: number;
  unlimited_quota: boolean;
  model_limits_enabled: boolean;
  /** Comma-separated model names. */
  model_limits: string;
  /** One address or range a line; null when never set. */
  allow_ips: string | null;
  used_quota: number;
  group: string;
}

/** The fields the drawer edits, as the server takes them. */
export interface TokenFields {
  name: string;
  remain_quota: number;
  expired_time: number;
  unlimited_quota: boolean;
  model_limits_enabled: boolean;
  model_limits: string;
  allow_ips: string;
  group: string;
}

export interface TokenListFilter {
  /** Part of the name. */
  keyword?: string;
  /** Part of the key, with or without `sk-`. */
  token?: string;
}

/** The largest page `GET /api/token/` answers. */
export const TOKEN_MAX_PAGE_SIZE = 100;

/** Search answers every match at once, so paging is local and the total is known. */
const searchTokens = async (keyword: string, token: string, page: number, perPage: number): Promise<GetListResult<Token>> => {
  const found = (await apiRequest<Token[] | null>('/api/token/search', { query: { keyword, token } })) ?? [];
  const start = (page - 1) * perPage;
  return { data: found.slice(start, start + perPage), total: found.length };
};

/**
 * `GET /api/token/?p&size` pages 0-based with any size up to 100, newest first, as a bare array without a total:
 * react-admin's page n of size s is exactly the server's page n-1. A short page is the last, so the total is
 * known; after a full page, one token is asked for at the next page's offset (size 1, page = offset) to learn
 * whether there is more, and if not the total is known too.
 */
const listTokens = async (page: number, perPage: number): Promise<GetListResult<Token>> => {
  const size = Math.min(Math.max(1, perPage), TOKEN_MAX_PAGE_SIZE);
  const data = (await apiRequest<Token[] | null>('/api/token/', { query: { p: page - 1, size } })) ?? [];
  const before = (page - 1) * size;
  if (data.length < size) return { data, total: before + data.length };
  const next = (await apiRequest<Token[] | null>('/api/token/', { query: { p: page * size, size: 1 } })) ?? [];
  if (next.length === 0) return { data, total: before + data.length };
  return { data, pageInfo: { hasNextPage: true, hasPreviousPage: page > 1 } };
};

/** `PUT /api/token/?status_only=true`: 1 enables, 2 disables; answers the token as it now is. */
export const setTokenStatus = async (id: number, status: number): Promise<Token> =>
  apiRequest<Token>('/api/token/', { method: 'PUT', query: { status_only: 'true' }, body: { id, status } });

/** `POST /api/token/`: the answer has no data (the key is shown by the list, never by creation). */
export const createToken = async (fields: TokenFields): Promise<void> => {
  await apiRequest('/api/token/', { method: 'POST', body: fields });
};

export const tokenEndpoints: ResourceEndpoints<Token> = {
  async getList({ pagination, filter }) {
    const page = pagination?.page ?? 1;
    const perPage = pagination?.perPage ?? 10;
    const { keyword = '', token = '' } = (filter ?? {}) as TokenListFilter;
    const name = keyword.trim();
    const key = token.trim();
    // As new-api: with both inputs empty, the plain first page is shown again.
    return name || key ? searchTokens(name, key, page, perPage) : listTokens(page, perPage);
  },

  async getOne({ id }) {
    return { data: await apiRequest<Token>(`/api/token/${encodeURIComponent(String(id))}`) };
  },

  /** One token; the drawer's batch creation calls `createToken` once per token. */
  async create({ data }) {
    await createToken(data as TokenFields);
    return { data: { ...(data as TokenFields), id: `new:${String((data as TokenFields).name)}` } as unknown as Token };
  },

  async update({ id, data }) {
    const updated = await apiRequest<Token>('/api/token/', { method: 'PUT', body: { ...(data as TokenFields), id: Number(id) } });
    return { data: updated };
  },

  async delete({ id, previousData }) {
    await apiRequest(`/api/token/${encodeURIComponent(String(id))}/`, { method: 'DELETE' });
    return { data: previousData as Token };
  },
};
