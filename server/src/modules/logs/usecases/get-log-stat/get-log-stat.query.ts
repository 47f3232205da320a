import { Query } from '@nestjs/cqrs';
import type { LogFilters, LogScope } from '../../log-query';

export interface LogStat {
  quota: number;
  rpm: number;
  tpm: number;
}

/**
 * GET /api/log/stat (admin) and /api/log/self/stat (the caller's rows) as new-api's SumUsedQuota computes
 * them: over type 2 rows only (the `type` filter is ignored), `quota` = sum of quota within the filters and
 * the start/end range; `rpm` = rows and `tpm` = prompt + completion tokens in the 60 seconds before `now`, with the
 * same filters but not the range.
 */
export class GetLogStatQuery extends Query<LogStat> {
  constructor(
    readonly scope: LogScope,
    readonly filters: LogFilters,
    /** Unix seconds. */
    readonly now: number,
  ) {
    super();
  }
}
