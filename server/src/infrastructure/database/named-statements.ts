import { createHash } from 'node:crypto';

/**
 * Named prepared statements for the statements the ledger and the projector run for every batch. node-postgres
 * (and TypeORM's `query()` above it) sends a statement unnamed unless it is given a name, and Postgres then parses and
 * plans it on every call. The batch statements are constant texts whose parameters are arrays, so one name per text
 * lets each connection parse and plan them once: for the projector's set-based folds, CTEs over `unnest` arrays, the
 * parse and plan cost several times the execution (docs/benchmark.md, "Named statements for the batch folds").
 *
 * Plans follow the server's `plan_cache_mode` (custom plans for a statement's first five runs, then the generic one
 * when it is no worse). PG_PREPARED_STATEMENTS=off sends them unnamed again, for a pooler in transaction mode that
 * cannot keep a statement prepared on a server connection (PgBouncer before 1.21, or with max_prepared_statements 0).
 */
let enabled = true;

/** Whether batch statements are sent named (PG_PREPARED_STATEMENTS, set by InfrastructureModule; tests switch it). */
export function preparedStatementsEnabled(): boolean {
  return enabled;
}

export function setPreparedStatements(on: boolean): void {
  enabled = on;
}

const names = new Map<string, string>();

/** The statement's name: the same for the same text, different for different texts (pg refuses a name reused). */
export function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `tg_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

/** A node-postgres query config: named when prepared statements are on, plain text otherwise. */
export function batchStatement(text: string, values: unknown[]): { text: string; values: unknown[]; name?: string } {
  return enabled ? { name: statementName(text), text, values } : { text, values };
}
