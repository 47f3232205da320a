import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { DataSource, EntityManager } from 'typeorm';
import type { Projection } from './projection';
import { quoteTable } from './quote-table';

/**
 * Snapshots of the projections' tables (docs/ledger.md, "Archival and snapshots"): every table a projection owns,
 * copied at that projection's checkpoint into `ledger_snapshot_tables` as gzip NDJSON chunks (`row_to_json` of each
 * row, ROWS_PER_CHUNK rows a chunk) with their sha256. Taken in one REPEATABLE READ transaction: the runner commits
 * a batch's rows and checkpoints together, so what the transaction sees is every table exactly at its checkpoint,
 * whatever the live projector does meanwhile. A rebuild restores a snapshot and replays only what came after.
 */

const ROWS_PER_CHUNK = 5000;

export interface SnapshotSummary {
  id: number;
  /** The lowest checkpoint among the snapshotted projections: every event up to it is in every table. */
  position: number;
  projections: Array<{ name: string; checkpoint: number; rows: Record<string, number> }>;
}

export class SnapshotBehindError extends Error {
  readonly code = 'snapshot_projection_behind';
}

/**
 * Copies every projection's tables at its checkpoint. `minimumPosition`: refuse (and write nothing) when a projection
 * has not reached it (an archive must not remove events a projection still needs).
 */
export async function takeSnapshot(
  dataSource: DataSource,
  projections: readonly Projection[],
  options: { reason: string; minimumPosition?: number },
): Promise<SnapshotSummary> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.startTransaction('REPEATABLE READ');
    const rows: Array<{ name: string; position: string }> = await runner.query(
      'SELECT name, position FROM projection_checkpoints WHERE name = ANY($1)',
      [projections.map((projection) => projection.name)],
    );
    const checkpoints = new Map(rows.map((row) => [row.name, Number(row.position)]));
    const minimum = options.minimumPosition ?? 0;
    const behind = projections.filter((projection) => (checkpoints.get(projection.name) ?? 0) < minimum);
    if (behind.length) {
      throw new SnapshotBehindError(
        `projection(s) ${behind.map((projection) => `${projection.name} at ${checkpoints.get(projection.name) ?? 0}`).join(', ')} ` +
          `behind position ${minimum}: let the projector catch up (or rebuild) and retry`,
      );
    }
    const position = projections.length ? Math.min(...projections.map((projection) => checkpoints.get(projection.name) ?? 0)) : 0;
    const [{ id }]: Array<{ id: string }> = await runner.query(
      'INSERT INTO ledger_snapshots (position, reason) VALUES ($1, $2) RETURNING id',
      [position, options.reason],
    );
    const summary: SnapshotSummary = { id: Number(id), position, projections: [] };
    for (const projection of projections) {
      const checkpoint = checkpoints.get(projection.name) ?? 0;
      const counts: Record<string, number> = {};
      for (const table of projection.tables) {
        counts[table] = 0;
        await runner.query(`DECLARE snapshot_rows NO SCROLL CURSOR FOR SELECT row_to_json(t)::text AS line FROM ${quoteTable(table)} t`);
        for (let chunk = 0; ; chunk++) {
          const lines: Array<{ line: string }> = await runner.query(`FETCH ${ROWS_PER_CHUNK} FROM snapshot_rows`);
          // An empty table still gets its (empty) first chunk: the snapshot says it was taken, with no rows.
          if (lines.length === 0 && chunk > 0) break;
          const payload = gzipSync(Buffer.from(lines.map((row) => row.line).join('\n'), 'utf8'));
          await runner.query(
            `INSERT INTO ledger_snapshot_tables (snapshot_id, projection, table_name, checkpoint, chunk, row_count, payload, sha256)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
            [summary.id, projection.name, table, checkpoint, chunk, lines.length, payload, sha256(payload)],
          );
          counts[table] += lines.length;
          if (lines.length < ROWS_PER_CHUNK) break;
        }
        await runner.query('CLOSE snapshot_rows');
      }
      summary.projections.push({ name: projection.name, checkpoint, rows: counts });
    }
    await runner.commitTransaction();
    return summary;
  } catch (error) {
    if (runner.isTransactionActive) await runner.rollbackTransaction().catch(() => undefined);
    throw error;
  } finally {
    await runner.release();
  }
}

export async function latestSnapshot(dataSource: DataSource): Promise<{ id: number; position: number } | null> {
  const rows: Array<{ id: string; position: string }> = await dataSource.query(
    'SELECT id, position FROM ledger_snapshots ORDER BY id DESC LIMIT 1',
  );
  return rows.length ? { id: Number(rows[0].id), position: Number(rows[0].position) } : null;
}

/**
 * Fills the (emptied) tables of `projections` from snapshot `snapshotId` and sets each restored projection's
 * checkpoint to the one it was copied at, in the caller's transaction. A projection the snapshot lacks (added
 * later) is left empty at its checkpoint: the replay gives it everything from the start. Returns the projections
 * restored with their checkpoints.
 */
export async function restoreSnapshot(
  manager: EntityManager,
  snapshotId: number,
  projections: readonly Projection[],
): Promise<Map<string, number>> {
  // FOR SHARE: an archive run that finishes meanwhile drops older snapshots; it waits for this transaction instead.
  const held: unknown[] = await manager.query('SELECT id FROM ledger_snapshots WHERE id = $1 FOR SHARE', [snapshotId]);
  if (held.length === 0) throw new Error(`ledger snapshot ${snapshotId} is gone (a newer archive run replaced it): retry the rebuild`);
  const stored: Array<{ projection: string; table_name: string; checkpoint: string }> = await manager.query(
    'SELECT DISTINCT projection, table_name, checkpoint FROM ledger_snapshot_tables WHERE snapshot_id = $1',
    [snapshotId],
  );
  const restored = new Map<string, number>();
  for (const projection of projections) {
    if (projection.tables.length === 0) continue;
    const tables = stored.filter((row) => row.projection === projection.name);
    if (projection.tables.some((table) => !tables.some((row) => row.table_name === table))) continue;
    for (const table of projection.tables) {
      const chunks: Array<{ chunk: number; payload: Buffer; sha256: string; row_count: number }> = await manager.query(
        'SELECT chunk, payload, sha256, row_count FROM ledger_snapshot_tables WHERE snapshot_id = $1 AND table_name = $2 ORDER BY chunk',
        [snapshotId, table],
      );
      if (chunks.length === 0 || chunks[0].chunk !== 0) throw new Error(`snapshot ${snapshotId}: ${table} has no first chunk`);
      for (const [index, chunk] of chunks.entries()) {
        if (chunk.chunk !== index) throw new Error(`snapshot ${snapshotId}: ${table} lacks chunk ${index}`);
        if (sha256(chunk.payload) !== chunk.sha256) {
          throw new Error(`snapshot ${snapshotId}: chunk ${chunk.chunk} of ${table} does not match its sha256`);
        }
        if (chunk.row_count === 0) continue;
        const lines = gunzipSync(chunk.payload).toString('utf8').split('\n');
        if (lines.length !== chunk.row_count) {
          throw new Error(`snapshot ${snapshotId}: chunk ${chunk.chunk} of ${table} holds ${lines.length} rows, not ${chunk.row_count}`);
        }
        await manager.query(
          `INSERT INTO ${quoteTable(table)} SELECT * FROM json_populate_recordset(NULL::${quoteTable(table)}, $1::json)`,
          [`[${lines.join(',')}]`],
        );
      }
    }
    const checkpoint = Number(tables[0]?.checkpoint ?? 0);
    await manager.query(
      `UPDATE projection_checkpoints SET position = $2, updated_at = now(), last_error = NULL, last_error_at = NULL WHERE name = $1`,
      [projection.name, checkpoint],
    );
    restored.set(projection.name, checkpoint);
  }
  return restored;
}

function sha256(payload: Buffer): string {
  return createHash('sha256').update(payload).digest('hex');
}
