import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { TokenAuthCache } from '../../token-auth/token-auth-cache';
import { TokenStatus } from '../../token-status';
import { MarkTokenLapsedCommand } from './mark-token-lapsed.command';

const ENABLED_LIVE_TOKEN = `id = $1 AND status = ${TokenStatus.Enabled} AND deleted_at IS NULL`;

/**
 * The relay judged from its cache; each write re-checks the facts in the same statement, so a user who fixed the
 * expiry or the quota a moment ago (or disabled the token) is never overwritten by a stale judgement.
 */
function statement(command: MarkTokenLapsedCommand): { sql: string; parameters: unknown[] } {
  if (command.status === TokenStatus.Expired) {
    return {
      sql: `UPDATE tokens SET status = ${TokenStatus.Expired} WHERE ${ENABLED_LIVE_TOKEN} AND expired_time <> -1 AND expired_time < $2 RETURNING key`,
      parameters: [command.tokenId, command.now],
    };
  }
  return {
    sql: `UPDATE tokens SET status = ${TokenStatus.Exhausted} WHERE ${ENABLED_LIVE_TOKEN} AND NOT unlimited_quota
            AND COALESCE((SELECT remain_quota FROM token_balances WHERE token_id = tokens.id), 0) <= 0 RETURNING key`,
    parameters: [command.tokenId],
  };
}

@CommandHandler(MarkTokenLapsedCommand)
export class MarkTokenLapsedHandler implements ICommandHandler<MarkTokenLapsedCommand> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cache: TokenAuthCache,
  ) {}

  async execute(command: MarkTokenLapsedCommand): Promise<boolean> {
    const { sql, parameters } = statement(command);
    // TypeORM answers an UPDATE with [returned rows, affected row count].
    const [rows] = (await this.dataSource.query(sql, parameters)) as [Array<{ key: string }>, number];
    if (rows.length === 0) return false;
    await this.cache.tokenChanged({ id: command.tokenId, key: rows[0].key });
    return true;
  }
}
