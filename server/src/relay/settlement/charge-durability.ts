import { join, resolve } from 'node:path';
import type { AppConfig } from '../../config/app-config';

/**
 * When a relayed answer may end (RELAY_CHARGE_DURABILITY):
 * - `journal` (default): once the charge is written to this process's charge journal (a local file, see
 *   charge-journal.ts); the ledger append follows at once, group committed, off the answer's path.
 * - `ledger`: once the charge's ledger append committed (one Postgres round trip on the answer's path).
 */
export type ChargeDurability = 'journal' | 'ledger';

/** Where an installation's charge journal lives: <RELAY_JOURNAL_DIR, default DATA_DIR/journal>/<database name>. */
export function journalDirectory(config: Pick<AppConfig, 'DATA_DIR' | 'RELAY_JOURNAL_DIR' | 'DATABASE_URL'>): string {
  const databaseUrl = config.DATABASE_URL;
  const root = config.RELAY_JOURNAL_DIR?.trim() ? config.RELAY_JOURNAL_DIR : join(config.DATA_DIR, 'journal');
  let database = 'tollgate';
  try {
    database = decodeURIComponent(new URL(databaseUrl).pathname.slice(1)) || database;
  } catch {
    // not a URL (a socket path?): one folder for the default name
  }
  return join(resolve(root), database.replace(/[^A-Za-z0-9_.-]/g, '_'));
}

/** The installation a journal's charges belong to (database and Redis prefix): a shared folder's other files are skipped. */
export function journalInstallation(config: Pick<AppConfig, 'DATABASE_URL' | 'REDIS_PREFIX'>): string {
  let database = config.DATABASE_URL;
  try {
    const url = new URL(config.DATABASE_URL);
    database = `${url.hostname}:${url.port || '5432'}${url.pathname}`;
  } catch {
    // keep the raw string
  }
  return `${database}#${config.REDIS_PREFIX}`;
}
