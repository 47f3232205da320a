import { startFakeEventStoreDb, type FakeEventStoreDb } from '#test/fakes/eventstoredb/esdb-server';
import { describeEventStoreContract } from '../event-store.contract';
import { EsdbEventStore } from './esdb-event-store';

/**
 * The whole contract through the official @eventstore/db-client against the test tree's gRPC EventStoreDB
 * (test/fakes/eventstoredb): the client's own connection, server-features, batch-append, read and subscription
 * code paths, with a real node's write checks. What only a real cluster proves is in docs/ledger.md.
 */
let server: FakeEventStoreDb | undefined;

afterAll(async () => {
  await server?.close();
});

describeEventStoreContract('eventstoredb (test-tree gRPC server)', async () => {
  server = await startFakeEventStoreDb();
  const store = await EsdbEventStore.connect({ url: server.url });
  return { store, dispose: () => store.close() };
});
