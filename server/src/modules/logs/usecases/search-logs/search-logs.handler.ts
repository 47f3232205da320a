import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { goInt, SEARCH_LIMIT } from '../../log-query';
import { LOG_COLUMNS, type LogJson, type LogRow, logContent, toLogJson, toSelfLogJson } from '../../log.serializer';
import { SearchLogsQuery } from './search-logs.query';

/** The keyword as a type number, when it is one (Postgres, unlike MySQL, cannot compare an integer with 'abc'). */
function keywordType(keyword: string): number | null {
  return /^[+-]?\d+$/.test(keyword) ? goInt(keyword) : null;
}

/** Every wording a consume row's columns derive starts with one of these (consume-log-wording.ts). */
const DERIVED_WORDING_STARTS = ['模型倍率 ', '模型价格 '];
/** Rows read per step when derived wordings must be matched in the server. */
const SCAN_STEP = 1000;

/** Postgres `LIKE pattern ESCAPE ''` (no escape character): `%` any run of characters, `_` one character. */
export function likeMatcher(pattern: string): (text: string) => boolean {
  const source = [...pattern]
    .map((char) => (char === '%' ? '[\\s\\S]*' : char === '_' ? '[\\s\\S]' : char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')))
    .join('');
  const regex = new RegExp(`^${source}$`, 'u');
  return (text) => regex.test(text);
}

/** Whether `pattern` could match a wording derived from consume columns (its literal start agrees with theirs). */
export function mayMatchDerivedWording(pattern: string): boolean {
  const wildcard = pattern.search(/[%_]/);
  const literal = wildcard === -1 ? pattern : pattern.slice(0, wildcard);
  return DERIVED_WORDING_STARTS.some((start) => start.startsWith(literal) || literal.startsWith(start));
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
    const pattern = `${keyword}%`;
    if (mayMatchDerivedWording(pattern)) return (await this.scanWithDerivedWordings(pattern, type)).map(toLogJson);
    // No derived wording can match: the stored wordings (a NULL content never matches LIKE) answer alone.
    const rows: LogRow[] =
      type === null
        ? await this.dataSource.query(
            `SELECT ${LOG_COLUMNS} FROM logs WHERE content LIKE $1 ESCAPE '' ORDER BY id DESC LIMIT ${SEARCH_LIMIT}`,
            [pattern],
          )
        : await this.dataSource.query(
            `SELECT ${LOG_COLUMNS} FROM logs WHERE type = $1::bigint OR content LIKE $2 ESCAPE '' ORDER BY id DESC LIMIT ${SEARCH_LIMIT}`,
            [type, pattern],
          );
    return rows.map(toLogJson);
  }

  /**
   * `type = keyword OR content LIKE 'keyword%'` when the pattern may match wordings that are derived, not stored:
   * newest first, the candidate rows (stored wording matching, derived wording, the type) read in steps by id, the
   * derived wordings matched in the server with Postgres' LIKE rules, until 100 match or none is left. A keyword that matches few
   * rows reads every consume row, as new-api's unindexed `LIKE` reads the whole table.
   */
  private async scanWithDerivedWordings(pattern: string, type: number | null): Promise<LogRow[]> {
    const matches = likeMatcher(pattern);
    const found: LogRow[] = [];
    let before: number | null = null;
    for (;;) {
      const params: unknown[] = [pattern];
      const typeCondition = type === null ? '' : ` OR type = $${params.push(type)}::bigint`;
      const after = before === null ? '' : ` AND id < $${params.push(before)}::bigint`;
      const rows: LogRow[] = await this.dataSource.query(
        `SELECT ${LOG_COLUMNS} FROM logs WHERE (content LIKE $1 ESCAPE '' OR content IS NULL${typeCondition})${after}
          ORDER BY id DESC LIMIT ${SCAN_STEP}`,
        params,
      );
      for (const row of rows) {
        // A stored wording was matched by Postgres itself; a derived one (NULL content) is matched here.
        if (row.content !== null || (type !== null && row.type === type) || matches(logContent(row))) found.push(row);
        if (found.length === SEARCH_LIMIT) return found;
      }
      if (rows.length < SCAN_STEP) return found;
      before = Number(rows[rows.length - 1].id);
    }
  }
}
