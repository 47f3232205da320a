import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { StatementFilters } from './statement-query';
import { STATEMENT_COLUMNS, type StatementRow } from './statement.serializer';

/** Lines fetched per round trip while a CSV export streams. */
const EXPORT_CHUNK = 500;

/** The WHERE clause of a user's statement under `filters`, with its parameters ($1 is the user). */
function whereOf(userId: number, filters: StatementFilters): { sql: string; params: unknown[] } {
  const conditions = ['user_id = $1'];
  const params: unknown[] = [userId];
  const add = (condition: (param: string) => string, value: unknown) => {
    params.push(value);
    conditions.push(condition(`$${params.length}`));
  };
  if (filters.kind !== null) add((p) => `kind = ${p}`, filters.kind);
  if (filters.startTimestamp !== null) add((p) => `created_at >= ${p}::bigint`, filters.startTimestamp);
  if (filters.endTimestamp !== null) add((p) => `created_at <= ${p}::bigint`, filters.endTimestamp);
  return { sql: conditions.join(' AND '), params };
}

/** Reads `statement_lines` (written by the statement projection only): a page, a count, or every line in chunks. */
@Injectable()
export class StatementReader {
  constructor(private readonly dataSource: DataSource) {}

  async userExists(userId: number): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query('SELECT 1 FROM users WHERE id = $1', [userId]);
    return rows.length > 0;
  }

  async page(userId: number, filters: StatementFilters, page: number, pageSize: number): Promise<{ rows: StatementRow[]; total: number }> {
    const where = whereOf(userId, filters);
    const counted: Array<{ total: string }> = await this.dataSource.query(
      `SELECT count(*) AS total FROM statement_lines WHERE ${where.sql}`,
      where.params,
    );
    const total = Number(counted[0]?.total ?? 0);
    if (total === 0) return { rows: [], total };
    const params = [...where.params, pageSize, (page - 1) * pageSize];
    const rows: StatementRow[] = await this.dataSource.query(
      `SELECT ${STATEMENT_COLUMNS} FROM statement_lines WHERE ${where.sql}
        ORDER BY position DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
    return { rows, total };
  }

  /**
   * Every line under `filters`, newest first, EXPORT_CHUNK at a time (keyset on the position, so memory stays flat
   * however long the statement). Lines appended while it streams are newer than the first chunk and not included.
   */
  async *all(userId: number, filters: StatementFilters): AsyncGenerator<StatementRow[]> {
    const where = whereOf(userId, filters);
    let before: string | null = null;
    for (;;) {
      const params: unknown[] = [...where.params];
      let sql = where.sql;
      if (before !== null) {
        params.push(before);
        sql += ` AND position < $${params.length}::bigint`;
      }
      params.push(EXPORT_CHUNK);
      const rows: StatementRow[] = await this.dataSource.query(
        `SELECT ${STATEMENT_COLUMNS} FROM statement_lines WHERE ${sql} ORDER BY position DESC LIMIT $${params.length}`,
        params,
      );
      if (rows.length === 0) return;
      yield rows;
      if (rows.length < EXPORT_CHUNK) return;
      before = rows[rows.length - 1].position;
    }
  }
}
