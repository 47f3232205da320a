'use strict';
/**
 * Bytes per relayed request in the ledger (`events`) and the consume log (`logs`), split into the table (heap +
 * TOAST) and its indexes, divided by the QuotaConsumed count (docs/benchmark.md, "Storage per relayed request").
 * The account statement's lines (`statement_lines`, one per charge, kept when the logs are purged and the events
 * archived) are reported beside them, outside the all-in figure of issue 20 §3.
 */

/** The tables of the all-in figure, in the order they are reported. */
const STORAGE_TABLES = ['events', 'logs'];
/** Tables measured and reported after the all-in figure, not in it. */
const BESIDE_TABLES = ['statement_lines'];

/**
 * Sizes of one table in bytes: the table itself, or the sum over its leaf partitions when it is partitioned
 * (pg_partition_tree answers nothing for a plain table on Postgres 15): `heap` the main fork, `toast` the TOAST table with its index, `indexes` every index (what
 * pg_indexes_size counts). The free-space and visibility maps are left out: they are a few pages per gigabyte and
 * appear only after a VACUUM.
 */
const SIZE_SQL = `
  SELECT coalesce(sum(pg_relation_size(c.oid, 'main')), 0)::bigint AS heap,
         coalesce(sum(CASE WHEN c.reltoastrelid <> 0 THEN pg_total_relation_size(c.reltoastrelid) ELSE 0 END), 0)::bigint AS toast,
         coalesce(sum(pg_indexes_size(c.oid)), 0)::bigint AS indexes,
         count(*)::int AS partitions
    FROM pg_class c
   WHERE c.oid IN (SELECT t.relid FROM pg_partition_tree($1::regclass) AS t WHERE t.isleaf)
      OR (c.oid = $1::regclass AND c.relkind = 'r')`;

/**
 * Per relayed request: each table's bytes `{ table, indexes, total }` (table = heap + TOAST) divided by `requests`
 * (the QuotaConsumed count), and `allIn`, the sum over the tables but those in `beside`. NaN figures when there were
 * no requests. `sizes` maps a table name to `{ heap, toast, indexes }` in bytes (numbers or numeric strings, as pg
 * returns bigint).
 */
function bytesPerRequest(sizes, requests, beside = BESIDE_TABLES) {
  const per = (bytes) => (requests > 0 ? Number(bytes) / requests : NaN);
  const tables = {};
  let allIn = 0;
  for (const [name, size] of Object.entries(sizes)) {
    const table = Number(size.heap) + Number(size.toast);
    const indexes = Number(size.indexes);
    tables[name] = {
      table: per(table),
      indexes: per(indexes),
      total: per(table + indexes),
      bytes: { heap: Number(size.heap), toast: Number(size.toast), indexes },
    };
    if (!beside.includes(name)) allIn += table + indexes;
  }
  return { requests, tables, beside: Object.keys(sizes).filter((name) => beside.includes(name)), allIn: per(allIn) };
}

/** One line for the report: "Storage per relayed request (N QuotaConsumed): events 240 B (table 180 + indexes 60), …". */
function storageLine(result) {
  const b = (value) => (Number.isFinite(value) ? `${Math.round(value)}` : 'n/a');
  const beside = result.beside ?? [];
  const part = ([name, t]) => `${name} ${b(t.total)} B (table ${b(t.table)} + indexes ${b(t.indexes)})`;
  const entries = Object.entries(result.tables);
  const inAll = entries.filter(([name]) => !beside.includes(name)).map(part);
  const besides = entries.filter(([name]) => beside.includes(name)).map(part);
  const line = `Storage per relayed request (${result.requests.toLocaleString('en-US')} QuotaConsumed; heap+TOAST and indexes after VACUUM): ${inAll.join(', ')}; all-in ${b(result.allIn)} B`;
  return besides.length ? `${line}; besides: ${besides.join(', ')}` : line;
}

/**
 * Measures the tables on `client` (a connected pg Client on the benchmark database): a CHECKPOINT and a VACUUM of
 * each table first (the sizes are then what the files hold once dead row versions are reclaimable), then the sizes
 * and the QuotaConsumed count. A table that does not exist is reported as zero bytes.
 */
async function measureStorage(client) {
  await client.query('CHECKPOINT').catch(() => undefined); // needs superuser or pg_checkpoint; the sizes do not depend on it
  const sizes = {};
  for (const table of [...STORAGE_TABLES, ...BESIDE_TABLES]) {
    const exists = (await client.query('SELECT to_regclass($1) IS NOT NULL AS ok', [table])).rows[0].ok;
    if (!exists) {
      sizes[table] = { heap: 0, toast: 0, indexes: 0 };
      continue;
    }
    await client.query(`VACUUM ${table}`);
    sizes[table] = (await client.query(SIZE_SQL, [table])).rows[0];
  }
  const requests = Number((await client.query(`SELECT count(*) AS count FROM events WHERE type = 'QuotaConsumed'`)).rows[0].count);
  return bytesPerRequest(sizes, requests);
}

module.exports = { STORAGE_TABLES, BESIDE_TABLES, SIZE_SQL, bytesPerRequest, storageLine, measureStorage };
