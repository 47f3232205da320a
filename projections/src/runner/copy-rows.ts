import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { QueryRunner } from 'typeorm';
import type { BulkRows } from './bulk-fold';
import { quoteTable } from './quote-table';

/**
 * Writes rows with `COPY … FROM STDIN` in Postgres's text format (pg-copy-streams; the pg client has no COPY of its
 * own): one protocol message per ~64 kB of rows instead of a statement, its parameters and its plan per page. On the
 * query runner's connection, so inside its transaction.
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

/** The COPY statement for `rows`' table and columns. */
export function copyStatement(rows: Pick<BulkRows, 'table' | 'columns'>): string {
  const columns = rows.columns.map((column) => `"${column.replace(/"/g, '""')}"`).join(', ');
  return `COPY ${quoteTable(rows.table)} (${columns}) FROM STDIN`;
}

/** Writes `batch.rows` into `batch.table` on the runner's connection; resolves the number of rows Postgres took. */
export async function copyRows(runner: QueryRunner, batch: BulkRows): Promise<number> {
  if (batch.rows.length === 0) return 0;
  const client = (await runner.connect()) as PoolClient;
  const stream = client.query(copyFrom(copyStatement(batch)));
  const done = finished(stream);
  try {
    // Straight into the COPY stream, waiting for 'drain' when it asks (no Readable and pipeline around a generator:
    // their per-chunk machinery was 3 % of a rebuild's CPU).
    for (const chunk of copyText(batch.rows, batch.columns.length)) {
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
