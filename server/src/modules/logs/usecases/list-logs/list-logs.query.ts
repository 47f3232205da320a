import { Query } from '@nestjs/cqrs';
import type { LogFilters, LogScope, Paging } from '../../log-query';
import type { LogJson } from '../../log.serializer';

export interface LogPage {
  items: LogJson[];
  total: number;
  page: number;
  page_size: number;
}

/**
 * GET /api/log/ (admin, every row) and GET /api/log/self/ (the caller's rows, without ids and admin_info): newest
 * first, 1-based pages, `{items, total, page, page_size}` (new-api's shape for logs, unlike its other lists).
 */
export class ListLogsQuery extends Query<LogPage> {
  constructor(
    readonly scope: LogScope,
    readonly filters: LogFilters,
    readonly paging: Paging,
  ) {
    super();
  }
}
