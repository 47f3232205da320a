import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { DomainError } from '#server/common/http/errors';
import { CheckDatabaseQuery } from './check-database.query';

/** HTTP 503 as new-api answers, so a load balancer health check can take the node out. */
export class DatabaseUnavailableError extends DomainError {
  constructor() {
    super('数据库连接失败', 'database_unavailable', 503);
  }
}

/** How long the ping may take before the database counts as down (a hung pool must not hang the check). */
export const DATABASE_PING_TIMEOUT_MS = 3000;

@QueryHandler(CheckDatabaseQuery)
export class CheckDatabaseHandler implements IQueryHandler<CheckDatabaseQuery, void> {
  constructor(private readonly dataSource: DataSource) {}

  async execute(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('database ping timed out')), DATABASE_PING_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.dataSource.query('SELECT 1'), timeout]);
    } catch {
      throw new DatabaseUnavailableError();
    } finally {
      clearTimeout(timer);
    }
  }
}
