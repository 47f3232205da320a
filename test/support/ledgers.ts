import { type FakeEventStoreDb, startFakeEventStoreDb } from '#test/fakes/eventstoredb/esdb-server';

/**
 * The ledgers an end-to-end spec can run on: the default Postgres `events` table, and EventStoreDB through the
 * official client against the test tree's gRPC server (test/fakes/eventstoredb), selected as in production by
 * EVENTSTORE_URL. With EVENTSTORE_URL set in the environment, the second runs against that real server instead.
 */
export interface LedgerUnderTest {
  /** Environment for the app or gateway: EVENTSTORE_URL for EventStoreDB, nothing for Postgres. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export const LEDGERS: Array<[name: string, start: () => Promise<LedgerUnderTest>]> = [
  ['postgres ledger', () => Promise.resolve({ env: {}, close: () => Promise.resolve() })],
  [
    process.env.EVENTSTORE_URL ? 'eventstoredb ledger (EVENTSTORE_URL)' : 'eventstoredb ledger (test-tree gRPC server)',
    async () => {
      if (process.env.EVENTSTORE_URL) return { env: { EVENTSTORE_URL: process.env.EVENTSTORE_URL }, close: () => Promise.resolve() };
      const server: FakeEventStoreDb = await startFakeEventStoreDb();
      return { env: { EVENTSTORE_URL: server.url }, close: () => server.close() };
    },
  ],
];
