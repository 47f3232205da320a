/** A table name, optionally schema-qualified, quoted for SQL: `a.b` → `"a"."b"`. */
export function quoteTable(table: string): string {
  return table
    .split('.')
    .map((part) => `"${part.replace(/"/g, '""')}"`)
    .join('.');
}
