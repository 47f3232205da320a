import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { QueryRunner } from 'typeorm';
import type { BulkRows } from './bulk-fold';
import { BINARY_KINDS, binaryRows, type ColumnKind } from './copy-binary';
import { quoteTable } from './quote-table';

/**
 * Writes rows with `COPY … FROM STDIN` (pg-copy-streams; the pg client has no COPY of its own): one protocol message
 * per chunk of rows instead of a statement, its parameters and its plan per page. In the binary format when every
 * column's type and every value allow it (copy-binary.ts, the column types read from the catalog), else in the text
 * format. On the query runner's connection, so inside its transaction.
 */

/** Bytes of COPY text gathered before they are handed to the stream. */
const CHUNK = 64 * 1024;

// Text format: backslash, newline, carriage return and tab are the characters that must be escaped in a field.
const ESCAPABLE = /[\\\n\r\t]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const escapeText = (text: string) => (ESCAPABLE.test(text) ? text.replace(/[\\\n\r\t]/g, (c) => ESCAPES[c]) : text);

/** One value as a field of COPY's text format. */
export function copyField(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return escapeText(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`COPY: ${value} is not a number Postgres can store here`);
      return String(value);
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 't' : 'f';
    case 'undefined':
      return '\\N';
    case 'object':
      if (value === null) return '\\N';
      if (value instanceof Date) return value.toISOString();
      return escapeText(JSON.stringify(value));
    default:
      throw new TypeError(`COPY: a ${typeof value} cannot be written to a column`);
  }
}

/** The COPY text of `rows`, in chunks of about CHUNK characters (each a whole number of rows). */
export function* copyText(rows: readonly unknown[][], width: number): Generator<string> {
  let chunk = '';
  for (const row of rows) {
    if (row.length !== width) throw new TypeError(`COPY: a row of ${row.length} values for ${width} columns`);
    let line = copyField(row[0]);
    for (let i = 1; i < width; i++) line += '\t' + copyField(row[i]);
    chunk += line + '\n';
    if (chunk.length >= CHUNK) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

/** The COPY statement for `rows`' table and columns, in the text format or the binary one. */
export function copyStatement(rows: Pick<BulkRows, 'table' | 'columns'>, binary = false): string {
  const columns = rows.columns.map((column) => `"${column.replace(/"/g, '""')}"`).join(', ');
  return `COPY ${quoteTable(rows.table)} (${columns}) FROM STDIN${binary ? ' (FORMAT binary)' : ''}`;
}

/** Per connection, per table and column list: the columns' kinds for the binary format, or null (text only). */
const kindsByRunner = new WeakMap<QueryRunner, Map<string, Promise<ColumnKind[] | null>>>();

/**
 * The kinds of `batch.columns` in its table (read from the catalog once per connection and column list), or null
 * when one of them has a type copy-binary.ts does not write.
 */
export function columnKinds(runner: QueryRunner, batch: Pick<BulkRows, 'table' | 'columns'>): Promise<ColumnKind[] | null> {
  let tables = kindsByRunner.get(runner);
  if (tables === undefined) kindsByRunner.set(runner, (tables = new Map()));
  const key = `${batch.table}\u0000${batch.columns.join('\u0000')}`;
  let kinds = tables.get(key);
  if (kinds === undefined) {
    kinds = runner
      .query(
        `SELECT a.attname AS name, t.typname AS type FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
          WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped`,
        [quoteTable(batch.table)],
      )
      .then((rows: Array<{ name: string; type: string }>) => {
        const types = new Map(rows.map((row) => [row.name, row.type]));
        const found = batch.columns.map((column) => BINARY_KINDS[types.get(column) ?? '']);
        return found.every((kind) => kind !== undefined) ? found : null;
      });
    tables.set(key, kinds);
    kinds.catch(() => tables.delete(key));
  }
  return kinds;
}

/**
 * Writes `batch.rows` into `batch.table` on the runner's connection; resolves the number of rows Postgres took. In
 * the binary format (copy-binary.ts) when the table's columns and the batch's values allow it, else as text.
 */
export async function copyRows(runner: QueryRunner, batch: BulkRows, format: 'any' | 'text' = 'any'): Promise<number> {
  if (batch.rows.length === 0) return 0;
  const kinds = format === 'text' ? null : await columnKinds(runner, batch);
  const binary = kinds === null ? null : binaryRows(batch.rows, kinds);
  const client = (await runner.connect()) as PoolClient;
  const stream = client.query(copyFrom(copyStatement(batch, binary !== null)));
  const done = finished(stream);
  try {
    // Straight into the COPY stream, waiting for 'drain' when it asks (no Readable and pipeline around a generator:
    // their per-chunk machinery was 3 % of a rebuild's CPU).
    for (const chunk of binary ?? copyText(batch.rows, batch.columns.length)) {
      if (!stream.write(chunk)) await once(stream, 'drain');
    }
    stream.end();
  } catch (error) {
    // A row that cannot be written (or the stream failing meanwhile): CopyFail, so the COPY is rolled back whole.
    stream.destroy(error instanceof Error ? error : new Error(String(error)));
    await done.catch(() => undefined);
    throw error;
  }
  await done;
  return stream.rowCount;
}
