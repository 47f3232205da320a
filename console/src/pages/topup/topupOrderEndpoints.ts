import type { GetListParams, GetListResult } from 'react-admin';
import { apiRequest } from '../../providers/httpClient';
import type { ResourceEndpoints } from '../../providers/endpoints/types';
import type { TopUpOrder } from './TopUpOrderHistory';

/** An order as the admins' GET /api/user/topup lists it: the caller's own fields plus whose order it is. */
export interface AdminTopUpOrder extends TopUpOrder {
  user_id: number;
  username: string;
}

/** The server's largest page (MAX_TOPUPS_PER_PAGE of the top-up routes). */
export const TOPUP_ORDERS_MAX_PAGE_SIZE = 100;

/**
 * The admins' `topup_order` resource: everyone's orders, or one user's (`user_id` filter), newest first. The server
 * pages 0-based and answers a bare array without a total, so the total is known only on a short (last) page; after
 * a full page the list has partial pagination (a next page may exist).
 */
export const topupOrderEndpoints: ResourceEndpoints<AdminTopUpOrder> = {
  async getList({ pagination, filter }: GetListParams): Promise<GetListResult<AdminTopUpOrder>> {
    const page = pagination?.page ?? 1;
    const perPage = Math.min(pagination?.perPage ?? 10, TOPUP_ORDERS_MAX_PAGE_SIZE);
    const userId = Number((filter as { user_id?: unknown } | undefined)?.user_id ?? 0);
    const rows =
      (await apiRequest<AdminTopUpOrder[] | null>('/api/user/topup', {
        query: { p: page - 1, page_size: perPage, ...(Number.isSafeInteger(userId) && userId > 0 ? { user_id: userId } : {}) },
      })) ?? [];
    // A page shorter than asked is the last, so the total is known; after a full one there may be more.
    if (rows.length < perPage) return { data: rows, total: (page - 1) * perPage + rows.length };
    return { data: rows, pageInfo: { hasNextPage: true, hasPreviousPage: page > 1 } };
  },
};
