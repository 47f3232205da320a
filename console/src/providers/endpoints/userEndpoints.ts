import type { GetListParams, GetListResult } from 'react-admin';
import type { User, UserManageAction } from '../../lib/types';
import { apiRequest } from '../httpClient';
import type { ResourceEndpoints } from './types';

/** `GET /api/user/?p=` answers fixed pages of 10 (as new-api), 0-based, as a bare array. */
export const SERVER_PAGE_SIZE = 10;

export interface UserListFilter {
  keyword?: string;
  group?: string;
}

const toQuota = (value: unknown): number => {
  const parsed = typeof value === 'number' ? value : Number.parseInt(String(value ?? '0'), 10);
  return Number.isFinite(parsed) ? Math.trunc(parsed) : 0;
};

/** Search answers every match at once, so paging is local and the total is known. */
const searchUsers = async (filter: UserListFilter, page: number, perPage: number): Promise<GetListResult<User>> => {
  const found =
    (await apiRequest<User[] | null>('/api/user/search', {
      query: { keyword: (filter.keyword ?? '').trim(), group: filter.group ?? '' },
    })) ?? [];
  const start = (page - 1) * perPage;
  return { data: found.slice(start, start + perPage), total: found.length };
};

/**
 * The plain list has no total, so react-admin gets partial pagination. A page size above 10 is filled by
 * reading the server's pages one at a time, stopping at the first short page.
 */
const listUsers = async (page: number, perPage: number): Promise<GetListResult<User>> => {
  const start = (page - 1) * perPage;
  const end = start + perPage;
  const firstServerPage = Math.floor(start / SERVER_PAGE_SIZE);
  const lastServerPage = Math.floor((end - 1) / SERVER_PAGE_SIZE);
  const rows: User[] = [];
  let lastPageFull = false;
  for (let serverPage = firstServerPage; serverPage <= lastServerPage; serverPage++) {
    const batch = (await apiRequest<User[] | null>('/api/user/', { query: { p: serverPage } })) ?? [];
    rows.push(...batch);
    lastPageFull = batch.length === SERVER_PAGE_SIZE;
    if (!lastPageFull) break;
  }
  const offset = start - firstServerPage * SERVER_PAGE_SIZE;
  const data = rows.slice(offset, offset + perPage);
  return {
    data,
    pageInfo: { hasNextPage: lastPageFull && data.length === perPage, hasPreviousPage: page > 1 },
  };
};

export const manageUser = async (id: number, action: UserManageAction): Promise<Pick<User, 'role' | 'status'>> => {
  const result = await apiRequest<Pick<User, 'role' | 'status'>>('/api/user/manage', {
    method: 'POST',
    body: { id, action },
  });
  return { role: result.role, status: result.status };
};

export const userEndpoints: ResourceEndpoints<User> = {
  async getList({ pagination, filter }: GetListParams) {
    const page = pagination?.page ?? 1;
    const perPage = pagination?.perPage ?? SERVER_PAGE_SIZE;
    const userFilter = (filter ?? {}) as UserListFilter;
    if ((userFilter.keyword ?? '').trim() || userFilter.group) return searchUsers(userFilter, page, perPage);
    return listUsers(page, perPage);
  },

  async getOne({ id }) {
    const user = await apiRequest<User>(`/api/user/${encodeURIComponent(String(id))}`);
    return { data: { ...user, password: '' } as User };
  },

  async create({ data }) {
    const username = String(data.username ?? '').trim();
    await apiRequest('/api/user/', {
      method: 'POST',
      body: { username, display_name: data.display_name ?? '', password: data.password ?? '' },
    });
    // The server answers creation without data; find the new user so react-admin gets a real record.
    const matches = (await apiRequest<User[] | null>('/api/user/search', { query: { keyword: username } })) ?? [];
    const created = matches.find((user) => user.username === username);
    return { data: (created ?? { ...data, id: username }) as User };
  },

  async update({ id, data, previousData }) {
    const body = {
      id: Number(id),
      username: data.username,
      display_name: data.display_name,
      password: data.password ?? '',
      group: data.group,
      quota: toQuota(data.quota),
    };
    await apiRequest('/api/user/', { method: 'PUT', body });
    return { data: { ...previousData, ...body, password: '' } as User };
  },

  async delete({ id, previousData }) {
    const result = await manageUser(Number(id), 'delete');
    return { data: { ...(previousData as User), ...result, DeletedAt: new Date().toISOString() } };
  },
};
