import { Query } from '@nestjs/cqrs';
import type { DashboardRange } from '../../dashboard-query';

/** A dashboard row in new-api's JSON names; a grouped row has 0 and "" in its user fields. */
export interface QuotaDataView {
  id: number;
  user_id: number;
  username: string;
  model_name: string;
  created_at: number;
  token_used: number;
  count: number;
  quota: number;
}

/** Whose rows: every user's summed per model and hour, one username's, or one user id's (the caller's own). */
export type QuotaDataScope = { kind: 'all' } | { kind: 'username'; username: string } | { kind: 'user'; userId: number };

/** GET /api/data/ and /api/data/self: the rows whose hour lies within the range (both bounds inclusive). */
export class ListQuotaDataQuery extends Query<QuotaDataView[]> {
  constructor(
    readonly scope: QuotaDataScope,
    readonly range: DashboardRange,
  ) {
    super();
  }
}
