import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { isWellFormedTokenKey } from '#server/modules/tokens/token-key';
import { LOG_COLUMNS, type LogRow, toSelfLogJson } from '../../log.serializer';
import { ListTokenLogsQuery, TOKEN_LOGS_LIMIT } from './list-token-logs.query';

@QueryHandler(ListTokenLogsQuery)
export class ListTokenLogsHandler implements IQueryHandler<ListTokenLogsQuery> {
  constructor(private readonly dataSource: DataSource) {}

  async execute({ key }: ListTokenLogsQuery): Promise<ReturnType<typeof toSelfLogJson>[]> {
    const bare = key.startsWith('sk-') ? key.slice(3) : key;
    // Anything that cannot be a stored key matches nothing, without a query (and never a database error).
    if (!isWellFormedTokenKey(bare)) return [];
    const tokens: Array<{ id: number }> = await this.dataSource.query('SELECT id FROM tokens WHERE key = $1 AND deleted_at IS NULL', [
      bare,
    ]);
    if (tokens.length === 0) return [];
    const rows: LogRow[] = await this.dataSource.query(`SELECT ${LOG_COLUMNS} FROM logs WHERE token_id = $1 ORDER BY id DESC LIMIT $2`, [
      tokens[0].id,
      TOKEN_LOGS_LIMIT,
    ]);
    return rows.map(toSelfLogJson);
  }
}
