import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { goInt, SEARCH_LIMIT } from '../../log-query';
import { LOG_COLUMNS, type LogJson, type LogRow, toLogJson, toSelfLogJson } from '../../log.serializer';
import { SearchLogsQuery } from './search-logs.query';

/** The keyword as a type number, when it is one (Postgres, unlike MySQL, cannot compare an integer with 'abc'). */
function keywordType(keyword: string): number | null {
  return /^[+-]?\d+$/.test(keyword) ? goInt(keyword) : null;
}

@QueryHandler(SearchLogsQuery)
export class SearchLogsHandler implements IQueryHandler<SearchLogsQuery> {
  constructor(private readonly dataSource: DataSource) {}

  async execute({ scope, keyword }: SearchLogsQuery): Promise<LogJson[]> {
    if (keyword.includes('\u0000')) return [];
    const type = keywordType(keyword);
    if (scope.kind === 'self') {
      if (type === null) return [];
      const rows: LogRow[] = await this.dataSource.query(
        `SELECT ${LOG_COLUMNS} FROM logs WHERE user_id = $1 AND type = $2::bigint ORDER BY id DESC LIMIT ${SEARCH_LIMIT}`,
        [scope.userId, type],
      );
      return rows.map(toSelfLogJson);
    }
    // No wildcard escaping, like new-api (keyword + "%"), and no escape character, so no pattern can fail.
    const rows: LogRow[] =
      type === null
        ? await this.dataSource.query(
            `SELECT ${LOG_COLUMNS} FROM logs WHERE content LIKE $1 ESCAPE '' ORDER BY id DESC LIMIT ${SEARCH_LIMIT}`,
            [`${keyword}%`],
          )
        : await this.dataSource.query(
            `SELECT ${LOG_COLUMNS} FROM logs WHERE type = $1::bigint OR content LIKE $2 ESCAPE '' ORDER BY id DESC LIMIT ${SEARCH_LIMIT}`,
            [type, `${keyword}%`],
          );
    return rows.map(toLogJson);
  }
}
