import { Query } from '@nestjs/cqrs';
import type { LogScope } from '../../log-query';
import type { LogJson } from '../../log.serializer';

/**
 * The legacy searches, newest 100 rows, a bare array: GET /api/log/search?keyword (admin) matches
 * `type = keyword OR content LIKE 'keyword%'`; GET /api/log/self/search?keyword matches the caller's rows with
 * `type = keyword` (without ids and, unlike new-api, without admin_info).
 */
export class SearchLogsQuery extends Query<LogJson[]> {
  constructor(
    readonly scope: LogScope,
    readonly keyword: string,
  ) {
    super();
  }
}
