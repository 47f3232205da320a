import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { filterWhere } from '../../log-query';
import { LOG_COLUMNS, type LogRow, toLogJson, toSelfLogJson } from '../../log.serializer';
import { type LogPage, ListLogsQuery } from './list-logs.query';

@QueryHandler(ListLogsQuery)
export class ListLogsHandler implements IQueryHandler<ListLogsQuery> {
  constructor(private readonly dataSource: DataSource) {}

  async execute({ scope, filters, paging }: ListLogsQuery): Promise<LogPage> {
    const answer = (items: LogPage['items'], total: number): LogPage => ({ items, total, page: paging.page, page_size: paging.pageSize });
    const where = filterWhere(filters, scope);
    if (where.impossible) return answer([], 0);
    const counted: Array<{ total: string }> = await this.dataSource.query(`SELECT count(*) AS total FROM logs ${where.sql}`, where.params);
    const total = Number(counted[0]?.total ?? 0);
    // page_size 0 is an empty page with the total (new-api's LIMIT 0).
    if (paging.pageSize === 0 || total === 0) return answer([], total);
    const params = [...where.params, paging.pageSize, (paging.page - 1) * paging.pageSize];
    const rows: LogRow[] = await this.dataSource.query(
      `SELECT ${LOG_COLUMNS} FROM logs ${where.sql} ORDER BY id DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
    return answer(rows.map(scope.kind === 'self' ? toSelfLogJson : toLogJson), total);
  }
}
