import { Query } from '@nestjs/cqrs';
import type { StatementFilters } from '../../statement-query';
import type { StatementLineJson, StatementViewer } from '../../statement.serializer';

export interface StatementPage {
  items: StatementLineJson[];
  total: number;
  page: number;
  page_size: number;
}

/** GET /api/statement/self and GET /api/statement/?user_id=: one page, newest first, 1-based. */
export class GetStatementPageQuery extends Query<StatementPage> {
  constructor(
    readonly userId: number,
    readonly viewer: StatementViewer,
    readonly filters: StatementFilters,
    readonly page: number,
    readonly pageSize: number,
  ) {
    super();
  }
}

/** `format=csv` of the same routes: the lines under the filters as CSV text, header first, produced chunk by chunk. */
export class ExportStatementCsvQuery extends Query<AsyncIterable<string>> {
  constructor(
    readonly userId: number,
    readonly viewer: StatementViewer,
    readonly filters: StatementFilters,
  ) {
    super();
  }
}
