import type { DataSource, EntityManager } from 'typeorm';
import { inLanes } from './in-lanes';
import type { Projection } from './projection';

/**
 * Secondary indexes a rebuild builds once at the end instead of row by row while it replays: a projection names
 * them in `deferredIndexes` (indexes of its own tables that none of its folds reads, and that back no constraint).
 * Before the replay they are dropped, their definitions kept in `projection_deferred_indexes` (migration
 * 1732300009300) in the same transaction; after it each is created again from its definition and its row deleted,
 * again in one transaction. A rebuild that dies in between leaves the rows behind, and `restoreDeferredIndexes`
 * (the next rebuild, the projector's next live session) creates what they name. Creating an index from sorted rows
 * costs a fraction of maintaining it through a million inserts.
 */

export interface DeferredIndex {
  name: string;
  table: string;
  definition: string;
}

/**
 * Drops the `deferredIndexes` of `projections` that exist and are plain indexes (not unique, not backing a
 * constraint: those stay, ON CONFLICT and the guards need them), remembering each definition; with `bulkLoaded`,
 * also every plain index and every UNIQUE constraint of those projections' tables (a bulk load reads none of its
 * tables' indexes, and its rows are unique by construction; its BulkLoad creates them again in its own transaction,
 * `createDeferredIndexesOf`: the constraints before its first barrier, the rest once its last rows are written).
 * Primary keys stay: their rows come in key order, and keeping one up costs less than building it again. Returns
 * what it dropped.
 */
export async function dropDeferredIndexes(
  dataSource: DataSource,
  projections: readonly Projection[],
  options: { bulkLoaded?: readonly Projection[] } = {},
): Promise<DeferredIndex[]> {
  const names = projections.flatMap((projection) => projection.deferredIndexes ?? []);
  const tables = (options.bulkLoaded ?? []).flatMap((projection) => projection.tables);
  if (names.length === 0 && tables.length === 0) return [];
  return dataSource.transaction(async (manager: EntityManager) => {
    const rows: Array<{ name: string; table: string; definition: string; constraint: boolean }> = await manager.query(
      `SELECT i.relname AS name, t.relname AS "table", pg_get_indexdef(i.oid) AS definition, false AS "constraint"
         FROM pg_index x
         JOIN pg_class i ON i.oid = x.indexrelid
         JOIN pg_class t ON t.oid = x.indrelid
         JOIN pg_namespace n ON n.oid = i.relnamespace AND n.nspname = current_schema()
        WHERE (i.relname = ANY($1) OR t.relname = ANY($2)) AND NOT x.indisunique
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.oid)
       UNION ALL
       SELECT c.conname, t.relname,
              format('ALTER TABLE %I ADD CONSTRAINT %I %s', t.relname, c.conname, pg_get_constraintdef(c.oid)), true
         FROM pg_constraint c
         JOIN pg_class t ON t.oid = c.conrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = current_schema()
        WHERE c.contype = 'u' AND t.relname = ANY($2) AND c.conparentid = 0
        ORDER BY 1`,
      [names, tables],
    );
    for (const row of rows) {
      await manager.query(
        `INSERT INTO projection_deferred_indexes (index_name, table_name, definition) VALUES ($1, $2, $3)
         ON CONFLICT (index_name) DO NOTHING`,
        [row.name, row.table, row.definition],
      );
      await manager.query(
        row.constraint
          ? `ALTER TABLE ${quoteIdentifier(row.table)} DROP CONSTRAINT ${quoteIdentifier(row.name)}`
          : `DROP INDEX ${quoteIdentifier(row.name)}`,
      );
    }
    return rows.map(({ name, table, definition }) => ({ name, table, definition }));
  });
}

/**
 * Creates every index (or UNIQUE constraint) `projection_deferred_indexes` names (dropped by a rebuild that finished
 * its replay, or died) and deletes its row, one per transaction, two at a time. One that exists again is only struck
 * off. Returns the names.
 */
export async function restoreDeferredIndexes(dataSource: DataSource): Promise<string[]> {
  const rows: Array<{ index_name: string; definition: string }> = await dataSource.query(
    'SELECT index_name, definition FROM projection_deferred_indexes ORDER BY index_name',
  );
  // Two at a time: an index build is one backend's sort, and a rebuild ends with a dozen of them.
  await inLanes(rows, 2, async (row) => {
    await dataSource.transaction(async (manager: EntityManager) => {
      const [present] = await manager.query('SELECT to_regclass($1) IS NOT NULL AS present', [quoteIdentifier(row.index_name)]);
      if (!present.present) await manager.query(onWholeTable(row.definition));
      await manager.query('DELETE FROM projection_deferred_indexes WHERE index_name = $1', [row.index_name]);
    });
  });
  return rows.map((row) => row.index_name);
}

/**
 * Creates, with `manager` (a bulk load's transaction), what `projection_deferred_indexes` names for `tables` and is not
 * there yet, and strikes each off in the same transaction: a load that commits has its indexes and constraints, one
 * that rolls back leaves the rows for restoreDeferredIndexes. `uniqueOnly`: only the UNIQUE constraints, which the
 * SQL of a barrier may need (an upsert's ON CONFLICT) while the plain indexes are still better built at the end.
 * Returns the names created.
 */
export async function createDeferredIndexesOf(
  manager: EntityManager,
  tables: readonly string[],
  options: { uniqueOnly?: boolean } = {},
): Promise<string[]> {
  const rows: Array<{ index_name: string; definition: string }> = await manager.query(
    `SELECT index_name, definition FROM projection_deferred_indexes
      WHERE table_name = ANY($1) AND to_regclass(quote_ident(index_name)) IS NULL
        AND (NOT $2 OR definition LIKE 'ALTER TABLE % ADD CONSTRAINT % UNIQUE %')
      ORDER BY index_name`,
    [tables, options.uniqueOnly === true],
  );
  for (const row of rows) {
    await manager.query(onWholeTable(row.definition));
    await manager.query('DELETE FROM projection_deferred_indexes WHERE index_name = $1', [row.index_name]);
  }
  return rows.map((row) => row.index_name);
}

/**
 * The definition as it creates the index on every partition: pg_get_indexdef says `ON ONLY <table>` for an index of a
 * partitioned table (logs), and run as it is that creates an invalid parent index that no partition gets.
 */
export function onWholeTable(definition: string): string {
  return definition.replace(/^(CREATE (?:UNIQUE )?INDEX (?:"(?:[^"]|"")+"|\S+) ON) ONLY /, '$1 ');
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
