import { type AppConfig, CONFIG_DEFAULTS } from '../config/app-config';
import type { EventStore } from './event-store.port';
import { EsdbEventStore } from './eventstoredb/esdb-event-store';
import { isEsdbUrl, redactUrl } from './eventstoredb/esdb-mapping';
import { type ArchiveConfig, ledgerArchiveStore } from './postgres/archive-segments';
import { PostgresEventStore } from './postgres/postgres-event-store';

export type EventStoreKind = 'postgres' | 'eventstoredb';

/** EVENTSTORE_URL unset → the Postgres events table; esdb:// or kurrentdb:// → EventStoreDB. Anything else is a typo. */
export function eventStoreKind(url: string | undefined): EventStoreKind {
  if (!url || !url.trim()) return 'postgres';
  if (isEsdbUrl(url)) return 'eventstoredb';
  throw new Error(`EVENTSTORE_URL "${redactUrl(url)}" is not an esdb:// or kurrentdb:// URL; unset it to use the Postgres event store`);
}

/** EVENTSTORE_POOL_SIZE may be left out by specs that build a store by hand. */
export async function createEventStore(
  config: Pick<AppConfig, 'EVENTSTORE_URL' | 'DATABASE_URL'> &
    Partial<Pick<AppConfig, 'EVENTSTORE_POOL_SIZE' | 'DATA_DIR'>> &
    Partial<Omit<ArchiveConfig, 'DATA_DIR' | 'DATABASE_URL'>>,
): Promise<EventStore> {
  if (eventStoreKind(config.EVENTSTORE_URL) === 'eventstoredb') {
    return EsdbEventStore.connect({ url: config.EVENTSTORE_URL as string });
  }
  return PostgresEventStore.connect({
    connectionString: config.DATABASE_URL,
    poolSize: config.EVENTSTORE_POOL_SIZE ?? CONFIG_DEFAULTS.EVENTSTORE_POOL_SIZE,
    // Where `npm run ledger:archive` moved old events (docs/ledger.md, "Archival and snapshots").
    archiveDir: config.DATA_DIR === undefined ? undefined : ledgerArchiveStore({ ...config, DATA_DIR: config.DATA_DIR }),
  });
}
