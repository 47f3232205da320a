/**
 * Row-for-row comparison of Postgres tables, for "rebuild equals live" tests: snapshot the projection tables
 * while live, rebuild, snapshot again, compare. Works with a TypeORM DataSource or EntityManager, a pg Pool or
 * Client, or snapshots taken earlier (so before/after on one database, or two databases side by side).
 */
export interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/** Per table, each row as canonical JSON (keys sorted), sorted: equal snapshots mean equal multisets of rows. */
export type TableSnapshot = Record<string, string[]>;

export interface SnapshotOptions {
  /** Columns left out of the comparison (e.g. an `updated_at` a projection fills with now(): better, fix it). */
  ignoreColumns?: string[];
}

export interface TableDifference {
  table: string;
  onlyInFirst: unknown[];
  onlyInSecond: unknown[];
}

export interface TableComparison {
  equal: boolean;
  differences: TableDifference[];
  /** A readable account for a failing test's message. */
  summary: string;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

function rowsOf(result: unknown): Array<{ row: Record<string, unknown> }> {
  // DataSource/EntityManager.query returns the rows; pg returns a result with `rows`.
  return (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Array<{ row: Record<string, unknown> }>;
}

function quote(table: string): string {
  return table
    .split('.')
    .map((part) => `"${part.replace(/"/g, '""')}"`)
    .join('.');
}

export async function snapshotTables(source: Queryable, tables: string[], options: SnapshotOptions = {}): Promise<TableSnapshot> {
  const ignored = new Set(options.ignoreColumns ?? []);
  const snapshot: TableSnapshot = {};
  for (const table of tables) {
    const rows = rowsOf(await source.query(`SELECT to_jsonb(t) AS row FROM ${quote(table)} t`));
    snapshot[table] = rows
      .map(({ row }) => {
        for (const column of ignored) delete row[column];
        return JSON.stringify(canonical(row));
      })
      .sort();
  }
  return snapshot;
}

function multisetMinus(a: string[], b: string[]): string[] {
  const counts = new Map<string, number>();
  for (const row of b) counts.set(row, (counts.get(row) ?? 0) + 1);
  const rest: string[] = [];
  for (const row of a) {
    const count = counts.get(row) ?? 0;
    if (count > 0) counts.set(row, count - 1);
    else rest.push(row);
  }
  return rest;
}

export function diffSnapshots(first: TableSnapshot, second: TableSnapshot, tables: string[] = Object.keys(first)): TableComparison {
  const differences: TableDifference[] = [];
  for (const table of tables) {
    const a = first[table] ?? [];
    const b = second[table] ?? [];
    const onlyInFirst = multisetMinus(a, b);
    const onlyInSecond = multisetMinus(b, a);
    if (onlyInFirst.length || onlyInSecond.length) {
      differences.push({
        table,
        onlyInFirst: onlyInFirst.map((row) => JSON.parse(row)),
        onlyInSecond: onlyInSecond.map((row) => JSON.parse(row)),
      });
    }
  }
  const summary = differences.length
    ? differences
        .map(
          (difference) =>
            `${difference.table}: ${difference.onlyInFirst.length} row(s) only in the first, ${difference.onlyInSecond.length} only in the second; e.g. ${JSON.stringify(difference.onlyInFirst[0] ?? difference.onlyInSecond[0])}`,
        )
        .join('\n')
    : `equal (${tables.map((table) => `${table}: ${(first[table] ?? []).length} rows`).join(', ')})`;
  return { equal: differences.length === 0, differences, summary };
}

const isQueryable = (value: Queryable | TableSnapshot): value is Queryable => typeof (value as Queryable).query === 'function';

/** Compares `tables` of two sources (live connections or snapshots), row for row. */
export async function compareTables(
  first: Queryable | TableSnapshot,
  second: Queryable | TableSnapshot,
  tables: string[],
  options: SnapshotOptions = {},
): Promise<TableComparison> {
  const a = isQueryable(first) ? await snapshotTables(first, tables, options) : first;
  const b = isQueryable(second) ? await snapshotTables(second, tables, options) : second;
  return diffSnapshots(a, b, tables);
}
