import type { EntityManager } from 'typeorm';

/**
 * `logs` is partitioned by RANGE on `created_at` (unix seconds), one partition per calendar month in UTC, named
 * `logs_pYYYYMM`, plus `logs_default` for the times no month covers (before 1970 or after 9999, which only a
 * malformed event could carry). Partitions are created on demand by the logs projection, in the transaction that
 * first writes a row of that month (before the insert), and dropped whole by a purge that covers the month.
 */

/** The first second of year 10000 (UTC): later times go to the default partition. */
export const LAST_MONTH_END = 253_402_300_800;

export interface LogMonth {
  /** `logs_pYYYYMM`. */
  name: string;
  /** Unix seconds: the month's first second (inclusive) and the next month's (exclusive). */
  from: number;
  to: number;
}

/** The month partition a row created at `createdAt` belongs to, or null for the default partition. */
export function logMonthOf(createdAt: number): LogMonth | null {
  if (!Number.isSafeInteger(createdAt) || createdAt < 0 || createdAt >= LAST_MONTH_END) return null;
  const date = new Date(createdAt * 1000);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  return {
    name: `logs_p${String(year).padStart(4, '0')}${String(month + 1).padStart(2, '0')}`,
    from: Date.UTC(year, month, 1) / 1000,
    to: Date.UTC(year, month + 1, 1) / 1000,
  };
}

/** A partition of `logs` with its bounds (`from`/`to` null for the default partition). */
export interface LogPartition {
  name: string;
  from: number | null;
  to: number | null;
}

/** Every partition of `logs`, oldest first (the default partition last). */
export async function logPartitions(manager: Pick<EntityManager, 'query'>): Promise<LogPartition[]> {
  const rows: Array<{ name: string; bound: string }> = await manager.query(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'logs'::regclass`,
  );
  return rows
    .map((row) => {
      const match = /FROM \('?(-?\d+)'?\) TO \('?(-?\d+)'?\)/.exec(row.bound);
      return { name: row.name, from: match ? Number(match[1]) : null, to: match ? Number(match[2]) : null };
    })
    .sort((a, b) => (a.from ?? Number.MAX_SAFE_INTEGER) - (b.from ?? Number.MAX_SAFE_INTEGER));
}

/** The DDL that creates a month's partition (idempotent; the name and bounds are numbers, never input text). */
/** A partition name as an SQL identifier. */
export const partitionIdentifier = (name: string) => `"${name.replace(/"/g, '""')}"`;

export function createMonthPartitionSql(month: LogMonth): string {
  return `CREATE TABLE IF NOT EXISTS ${month.name} PARTITION OF logs FOR VALUES FROM (${month.from}) TO (${month.to})`;
}

/**
 * The month partitions known to exist, per database (a projection instance can serve two data sources in a spec).
 * Only partitions seen committed in the catalogue are remembered, never one created by the current transaction
 * (which may still roll back); a purge forgets the partitions it drops. A partition dropped by hand while the
 * projector runs is not noticed (docs/logs.md: do not).
 */
const known = new WeakMap<object, Set<string>>();

function knownIn(manager: EntityManager): Set<string> {
  const key = manager.connection ?? manager;
  let set = known.get(key);
  if (!set) {
    set = new Set();
    known.set(key, set);
  }
  return set;
}

/**
 * Creates, inside the caller's transaction, the month partitions that rows created at `createdAts` need and that do
 * not exist yet: no query at all when every month is known, else one catalogue read and one CREATE per missing
 * month. Without it such a row would land in the default partition, and the month's partition could then never be
 * created (Postgres refuses a partition whose rows sit in the default one).
 */
export async function ensureLogPartitions(manager: EntityManager, createdAts: Iterable<number>): Promise<void> {
  const cache = knownIn(manager);
  const wanted = new Map<string, LogMonth>();
  for (const createdAt of createdAts) {
    const month = logMonthOf(createdAt);
    if (month && !cache.has(month.name)) wanted.set(month.name, month);
  }
  if (wanted.size === 0) return;
  // `mine`: created by this very transaction (an earlier event of the batch), so not yet safe to remember.
  const present: Array<{ name: string; mine: boolean }> = await manager.query(
    `SELECT c.relname AS name, c.xmin = (pg_current_xact_id()::text::bigint % 4294967296)::text::xid AS mine
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = 'logs'::regclass AND c.relname = ANY($1::text[])`,
    [[...wanted.keys()]],
  );
  for (const { name, mine } of present) {
    if (!mine) cache.add(name);
    wanted.delete(name);
  }
  for (const month of [...wanted.values()].sort((a, b) => a.from - b.from)) await manager.query(createMonthPartitionSql(month));
}

/**
 * Deletes every row with `created_at < before`: month partitions that lie wholly before it are counted and dropped
 * (no row-by-row delete, no dead tuples to vacuum), and the rows of the boundary month (and of the default
 * partition) are deleted. Answers how many rows went.
 */
export async function purgeLogsBefore(manager: EntityManager, before: number): Promise<number> {
  let deleted = 0;
  const cache = knownIn(manager);
  for (const partition of await logPartitions(manager)) {
    if (partition.to === null || partition.to > before) continue;
    const [{ count }]: Array<{ count: string }> = await manager.query(
      `SELECT count(*) AS count FROM ${partitionIdentifier(partition.name)}`,
    );
    deleted += Number(count);
    cache.delete(partition.name);
    await manager.query(`DROP TABLE ${partitionIdentifier(partition.name)}`);
  }
  const rows: Array<{ count: string }> = await manager.query(
    'WITH gone AS (DELETE FROM logs WHERE created_at < $1::bigint RETURNING 1) SELECT count(*) AS count FROM gone',
    [before],
  );
  return deleted + Number(rows[0]?.count ?? 0);
}
