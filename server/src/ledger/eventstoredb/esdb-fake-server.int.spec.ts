import { randomUUID } from 'node:crypto';
import { startFakeEventStoreDb, type FakeEventStoreDb } from '#test/fakes/eventstoredb/esdb-server';
import { newEvent, systemActor } from '../event-envelope';
import { describeEventStoreContract } from '../event-store.contract';
import { WrongExpectedRevisionError } from '../event-store.port';
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

describeEventStoreContract(
  'eventstoredb (test-tree gRPC server)',
  async () => {
    server = await startFakeEventStoreDb();
    const store = await EsdbEventStore.connect({ url: server.url });
    return { store, dispose: () => store.close() };
  },
  { idInOtherStream: 'accepted' },
);

describe('EsdbEventStore closing against the gRPC server', () => {
  const event = (index: number) =>
    newEvent('SampleRecorded', { index }, { id: randomUUID(), metadata: { correlationId: 'c', reasonCode: 'test', actor: systemActor() } });

  it('given reads that stop early and a subscription stopped by its handler, when the store closes, then it closes promptly', async () => {
    const own = await startFakeEventStoreDb();
    const store = await EsdbEventStore.connect({ url: own.url });
    try {
      await store.appendToStream('account-1', [event(0), event(1), event(2)]);
      expect(await store.readAll({ maxCount: 1 })).toHaveLength(1);
      expect(await store.headPosition()).toBeGreaterThan(0);
      const errors: unknown[] = [];
      const failing = store.subscribeToAll(
        {},
        () => Promise.reject(new Error('projection bug')),
        (error) => errors.push(error),
      );
      const other = store.subscribeToAll({}, () => Promise.resolve());
      while (errors.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      await failing.close();
      await other.close();
      const started = Date.now();
      await store.close();
      expect(Date.now() - started).toBeLessThan(2000);
      expect(errors).toHaveLength(1);
    } finally {
      await own.close();
    }
  });

  it.each([
    ['BatchAppend (a 21.10+ node)', true],
    ['Append (an older node)', false],
  ])(
    'given appends through %s, then revisions, idempotent retries and WrongExpectedVersion come back mapped',
    async (_path, batchAppend) => {
      const own = await startFakeEventStoreDb({ batchAppend });
      const store = await EsdbEventStore.connect({ url: own.url });
      try {
        const first = [event(0), event(1)];
        const written = await store.appendToStream('account-9', first, { expectedRevision: 'no_stream' });
        expect(written.nextExpectedRevision).toBe(1);
        // A retry of the stored batch: idempotent at its revision, with the original position.
        expect(await store.appendToStream('account-9', first, { expectedRevision: 'no_stream' })).toEqual(written);
        const conflict = await store.appendToStream('account-9', [event(2)], { expectedRevision: 0 }).catch((caught: unknown) => caught);
        expect(conflict).toBeInstanceOf(WrongExpectedRevisionError);
        expect(conflict).toMatchObject({ streamId: 'account-9', expected: 0, actual: 1 });
        const missing = await store
          .appendToStream('account-10', [event(3)], { expectedRevision: 'stream_exists' })
          .catch((caught: unknown) => caught);
        expect(missing).toMatchObject({ streamId: 'account-10', expected: 'stream_exists', actual: 'no_stream' });
        expect((await store.readStream('account-9')).map((stored) => stored.data.index)).toEqual([0, 1]);
        expect(await store.readStream('account-10')).toEqual([]);
      } finally {
        await store.close();
        await own.close();
      }
    },
  );
});
