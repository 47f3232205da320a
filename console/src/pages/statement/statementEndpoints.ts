import type { GetListParams, GetListResult } from 'react-admin';
import { apiRequest } from '../../providers/httpClient';
import type { ResourceEndpoints } from '../../providers/endpoints/types';
import { type StatementFilter, type StatementLine, type StatementPage, statementRequest } from './statementLine';

/** The server's largest page (MAX_PAGE_SIZE of the statement routes). */
export const STATEMENT_MAX_PAGE_SIZE = 100;

/** The `statement` resource: 1-based pages with a total, newest first; the filter picks the route. */
export const statementEndpoints: ResourceEndpoints<StatementLine> = {
  async getList({ pagination, filter }: GetListParams): Promise<GetListResult<StatementLine>> {
    const { path, query } = statementRequest((filter ?? {}) as StatementFilter);
    const page = await apiRequest<StatementPage>(path, {
      query: { ...query, p: pagination?.page ?? 1, page_size: Math.min(pagination?.perPage ?? 10, STATEMENT_MAX_PAGE_SIZE) },
    });
    return { data: page.items, total: page.total };
  },
};
