import { type DataSource, type EntityManager, QueryFailedError, type QueryRunner } from 'typeorm';
import { batchStatement, preparedStatementsEnabled } from '#server/infrastructure/database/named-statements';

/**
 * The projector's hot statements (each batch's set-based folds, the log insert, the checkpoint lock and update) as
 * named prepared statements on the batch's connection (named-statements.ts): TypeORM's `query()` sends every
 * statement unnamed, and these CTEs over `unnest` arrays cost several times more to parse and plan than to run.
 */

interface PgClient {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * Runs `text` with `values` on the manager's query runner (inside the batch's transaction) and resolves its rows.
 * Errors are TypeORM's QueryFailedError, as `manager.query` throws them. Without a query runner, with
 * PG_PREPARED_STATEMENTS=off or on another driver, the statement goes through TypeORM as before.
 */
export async function queryPrepared<T>(manager: EntityManager, text: string, values: unknown[]): Promise<T[]> {
  const runner = manager.queryRunner;
  if (!runner) return (await manager.query(text, values)) as T[];
  return onRunner<T>(runner, text, values);
}

/** The same for a statement outside a transaction: on a pooled connection taken for it and given back after. */
export async function queryPreparedOn<T>(dataSource: DataSource, text: string, values: unknown[]): Promise<T[]> {
  const runner = dataSource.createQueryRunner();
  try {
    return await onRunner<T>(runner, text, values);
  } finally {
    await runner.release();
  }
}

async function onRunner<T>(runner: QueryRunner, text: string, values: unknown[]): Promise<T[]> {
  if (!preparedStatementsEnabled() || runner.connection.options.type !== 'postgres') {
    return (await runner.query(text, values, true)).records as T[];
  }
  const client = (await runner.connect()) as PgClient;
  try {
    return (await client.query(batchStatement(text, values))).rows as T[];
  } catch (error) {
    throw new QueryFailedError(text, values, error as Error);
  }
}
