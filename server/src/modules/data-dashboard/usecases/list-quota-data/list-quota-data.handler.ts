import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { ListQuotaDataQuery, type QuotaDataView } from './list-quota-data.query';

interface Row {
  id: string;
  user_id: number;
  username: string;
  model_name: string;
  created_at: string;
  token_used: string;
  count: string;
  quota: string;
}

const RANGE = 'created_at >= $1::bigint AND created_at <= $2::bigint';

@QueryHandler(ListQuotaDataQuery)
export class ListQuotaDataHandler implements IQueryHandler<ListQuotaDataQuery> {
  constructor(private readonly dataSource: DataSource) {}

  async execute({ scope, range }: ListQuotaDataQuery): Promise<QuotaDataView[]> {
    const bounds = [range.startTimestamp, range.endTimestamp];
    let rows: Row[];
    if (scope.kind === 'all') {
      // The models of an hour in the database's own order, as before model_name compared in byte order (1732300009970).
      rows = await this.dataSource.query(
        `SELECT 0 AS id, 0 AS user_id, '' AS username, model_name, created_at, sum(token_used) AS token_used,
                sum(count) AS count, sum(quota) AS quota
           FROM quota_data WHERE ${RANGE} GROUP BY model_name, created_at
          ORDER BY created_at, model_name COLLATE "default"`,
        bounds,
      );
    } else if (scope.kind === 'username') {
      // Text with NUL cannot be stored, so it names no row (and Postgres would refuse it as a parameter).
      if (scope.username.includes('\u0000')) return [];
      rows = await this.dataSource.query(
        `SELECT id, user_id, username, model_name, created_at, token_used, count, quota
           FROM quota_data WHERE ${RANGE} AND username = $3 ORDER BY created_at, id`,
        [...bounds, scope.username],
      );
    } else {
      rows = await this.dataSource.query(
        `SELECT id, user_id, username, model_name, created_at, token_used, count, quota
           FROM quota_data WHERE ${RANGE} AND user_id = $3 ORDER BY created_at, id`,
        [...bounds, scope.userId],
      );
    }
    return rows.map((row) => ({
      id: Number(row.id),
      user_id: Number(row.user_id),
      username: row.username,
      model_name: row.model_name,
      created_at: Number(row.created_at),
      token_used: Number(row.token_used),
      count: Number(row.count),
      quota: Number(row.quota),
    }));
  }
}
