import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '#test/support/database';
import { newEvent, systemActor } from '../event-envelope';
import { describeEventStoreContract } from '../event-store.contract';
import { EventIdConflictError, type NewEvent, type RecordedEvent } from '../event-store.port';
import { PostgresEventStore } from './postgres-event-store';

const event = (index: number): NewEvent =>
  newEvent(
    'SampleRecorded',
    { index },
    {
      id: randomUUID(),
      metadata: { correlationId: `pg-${index}`, reasonCode: 'test', actor: systemActor() },
    },
  );

async function waitUntil(condition: () => boolean, timeoutMs = 10000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('PostgresEventStore', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  describeEventStoreContract('postgres', async () => {
    const store = await PostgresEventStore.connect({ connectionString: database.url });
    return { store, dispose: () => store.close() };
  });

  describe('position ordering under concurrency', () => {
    let store: PostgresEventStore;
    beforeAll(async () => {
      store = await PostgresEventStore.connect({ connectionString: database.url, pollIntervalMs: 50 });
    });
    afterAll(async () => {
      await store.close();
    });

    it('given a writer holding a lower position uncommitted, when another writer appends, then it waits and commits after it', async () => {
      const head = await store.headPosition();
      const slow = new Client({ connectionString: database.url });
      await slow.connect();
      try {
        await slow.query('BEGIN');
        const [held] = (
          await slow.query('SELECT * FROM ledger_append($1, $2, $3::jsonb)', ['ordering-slow', 'any', JSON.stringify([event(0)])])
        ).rows;
        expect(Number(held.last_position)).toBe(head + 1);

        let fastDone = false;
        const fast = store.appendToStream('ordering-fast', [event(1)]).then((result) => {
          fastDone = true;
          return result;
        });
        await new Promise((resolve) => setTimeout(resolve, 300));
        // The reader sees neither: the lower position is not committed, and the higher one cannot exist yet.
        expect(fastDone).toBe(false);
        expect(await store.readAll({ after: head })).toEqual([]);

        await slow.query('COMMIT');
        const result = await fast;
        expect(result.position).toBe(head + 2);
        const seen = await store.readAll({ after: head });
        expect(seen.map((recorded) => [recorded.streamId, recorded.position])).toEqual([
          ['ordering-slow', head + 1],
          ['ordering-fast', head + 2],
        ]);
      } finally {
        await slow.query('ROLLBACK').catch(() => undefined);
        await slow.end();
      }
    });

    it('given four appenders and a reader racing, when they finish, then the reader saw every position once, gapless and in order', async () => {
      const head = await store.headPosition();
      const seen: RecordedEvent[] = [];
      const subscription = store.subscribeToAll({ after: head }, async (recorded) => {
        seen.push(recorded);
      });
      const writers = Array.from({ length: 4 }, (_, writer) =>
        (async () => {
          for (let i = 0; i < 50; i++) {
            // Every fifth append is a two-event batch, so batches and single events interleave.
            await store.appendToStream(`stress-${writer}`, i % 5 === 0 ? [event(i), event(i)] : [event(i)]);
          }
        })(),
      );
      await Promise.all(writers);
      const total = 4 * (50 + 10);
      await waitUntil(() => seen.length >= total);
      await subscription.close();
      expect(seen.map((recorded) => recorded.position)).toEqual(Array.from({ length: total }, (_, i) => head + 1 + i));
    });

    it('given a writer holding a lower position uncommitted, when a group commit appends, then it waits and commits after it', async () => {
      const head = await store.headPosition();
      const slow = new Client({ connectionString: database.url });
      await slow.connect();
      try {
        await slow.query('BEGIN');
        await slow.query('SELECT * FROM ledger_append_many($1::jsonb)', [
          JSON.stringify([{ stream: 'ordering-many-slow', expected: 'any', events: [event(0)] }]),
        ]);
        let done = false;
        const batch = store
          .appendMany([1, 2, 3, 4].map((index) => ({ streamId: 'ordering-many-fast', events: [event(index)] })))
          .then((outcomes) => {
            done = true;
            return outcomes;
          });
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(done).toBe(false);
        expect(await store.readAll({ after: head })).toEqual([]);

        await slow.query('COMMIT');
        const outcomes = await batch;
        expect(outcomes).toEqual(
          [0, 1, 2, 3].map((revision) => ({ ok: true, result: { nextExpectedRevision: revision, position: head + 2 + revision } })),
        );
        expect((await store.readAll({ after: head })).map((recorded) => [recorded.streamId, recorded.revision, recorded.position])).toEqual(
          [['ordering-many-slow', 0, head + 1], ...[0, 1, 2, 3].map((revision) => ['ordering-many-fast', revision, head + 2 + revision])],
        );
      } finally {
        await slow.query('ROLLBACK').catch(() => undefined);
        await slow.end();
      }
    });

    it('given four group-commit writers sharing hot streams and a reader racing, when they finish, then positions are gapless and in order and every stream counts on', async () => {
      const head = await store.headPosition();
      const seen: RecordedEvent[] = [];
      const subscription = store.subscribeToAll({ after: head }, async (recorded) => {
        seen.push(recorded);
      });
      const accounts = Array.from({ length: 6 }, (_, i) => `race-account-${i}`);
      const answered = new Map<string, number>();
      const revisionOf = new Map<string, number>();
      let retried = 0;
      const writers = Array.from({ length: 4 }, (_, writer) =>
        (async () => {
          for (let round = 0; round < 12; round++) {
            // Batches of 20 to 64 'any' appends, all writers on the same six streams; now and then a retry of an
            // earlier charge inside the batch (a no-op answering the first).
            const requests = Array.from({ length: 20 + ((writer * 13 + round * 7) % 45) }, (_, i) => ({
              streamId: accounts[(writer + round + i) % accounts.length],
              events: [event(i)],
            }));
            if (round % 3 === 0) {
              requests.push({ ...requests[0] });
              retried++;
            }
            const outcomes = await store.appendMany(requests, { durability: 'async' });
            outcomes.forEach((outcome, i) => {
              if (!outcome.ok) throw outcome.error;
              const id = requests[i].events[0].id;
              if (answered.has(id)) expect(outcome.result.position).toBe(answered.get(id));
              answered.set(id, outcome.result.position);
              revisionOf.set(id, outcome.result.nextExpectedRevision);
            });
          }
        })(),
      );
      await Promise.all(writers);
      const total = answered.size;
      await waitUntil(() => seen.length >= total);
      await new Promise((resolve) => setTimeout(resolve, 100));
      await subscription.close();
      expect(retried).toBeGreaterThan(0);
      expect(seen.map((recorded) => recorded.position)).toEqual(Array.from({ length: total }, (_, i) => head + 1 + i));
      expect(new Map(seen.map((recorded) => [recorded.id, recorded.position]))).toEqual(answered);
      expect(new Map(seen.map((recorded) => [recorded.id, recorded.revision]))).toEqual(revisionOf);
      for (const account of accounts) {
        const revisions = seen.filter((recorded) => recorded.streamId === account).map((recorded) => recorded.revision);
        expect(revisions).toEqual(revisions.map((_, i) => i));
      }
    });
  });

  describe('Postgres specifics', () => {
    let store: PostgresEventStore;
    beforeAll(async () => {
      store = await PostgresEventStore.connect({ connectionString: database.url, pollIntervalMs: 60_000 });
    });
    afterAll(async () => {
      await store.close();
    });

    it('given an idle subscription with a one-minute poll, when an event is appended, then NOTIFY delivers it at once', async () => {
      const head = await store.headPosition();
      const seen: RecordedEvent[] = [];
      const subscription = store.subscribeToAll({ after: head }, async (recorded) => {
        seen.push(recorded);
      });
      await new Promise((resolve) => setTimeout(resolve, 200)); // caught up and asleep
      const started = Date.now();
      await store.appendToStream('notify', [event(0)]);
      await waitUntil(() => seen.length === 1, 2000);
      expect(Date.now() - started).toBeLessThan(2000);
      await subscription.close();
    });

    it('given LISTEN disabled, when an event is appended, then the slow poll still delivers it', async () => {
      const polling = await PostgresEventStore.connect({ connectionString: database.url, listen: false, pollIntervalMs: 50 });
      const head = await polling.headPosition();
      const seen: RecordedEvent[] = [];
      const subscription = polling.subscribeToAll({ after: head }, async (recorded) => {
        seen.push(recorded);
      });
      await store.appendToStream('polled', [event(0)]);
      await waitUntil(() => seen.length === 1, 2000);
      await subscription.close();
      await polling.close();
    });

    it('given a stored event, when a batch adds a new event before repeating it, then the whole batch is rejected', async () => {
      const existing = event(0);
      await store.appendToStream('mixed-order', [existing]);
      await expect(store.appendToStream('mixed-order', [event(1), existing])).rejects.toMatchObject({ reason: 'partial_duplicate' });
      expect(await store.readStream('mixed-order')).toHaveLength(1);
    });

    it('given an event id stored in one stream, when appended to another, then it is a conflict, not a silent no-op', async () => {
      const shared = event(0);
      await store.appendToStream('owner-a', [shared]);
      const error = await store.appendToStream('owner-b', [shared]).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(EventIdConflictError);
      expect(error).toMatchObject({ reason: 'id_in_other_stream', eventIds: [shared.id] });
    });

    it('given the events table, when someone tries to update, delete or truncate it, then Postgres refuses', async () => {
      await store.appendToStream('immutable', [event(0)]);
      const client = new Client({ connectionString: database.url });
      await client.connect();
      try {
        await expect(client.query(`UPDATE events SET type = 'Forged' WHERE stream_id = 'immutable'`)).rejects.toThrow(/append-only/);
        await expect(client.query(`DELETE FROM events WHERE stream_id = 'immutable'`)).rejects.toThrow(/append-only/);
        await expect(client.query('TRUNCATE events')).rejects.toThrow(/append-only/);
      } finally {
        await client.end();
      }
    });

    it('given durability async, when appending, then the commit skips the WAL flush for that transaction only', async () => {
      // One connection, so the check after the append runs on the very session that appended.
      const single = await PostgresEventStore.connect({ connectionString: database.url, poolSize: 1, listen: false });
      const pool = (single as unknown as { pool: { query: (...args: unknown[]) => Promise<{ rows: Array<Record<string, string>> }> } })
        .pool;
      const sent = jest.spyOn(pool, 'query');
      try {
        const one = await single.appendToStream('async-one', [event(0)], { durability: 'async' });
        const many = await single.appendMany(
          [
            { streamId: 'async-many-a', events: [event(1)] },
            { streamId: 'async-many-b', events: [event(2)] },
          ],
          { durability: 'async' },
        );
        const strict = await single.appendToStream('sync-one', [event(3)]);
        // Each call is a query config (named statement) or a text.
        const texts = sent.mock.calls.map(([query]) => (typeof query === 'string' ? query : (query as { text: string }).text));
        expect(texts.filter((text) => text.includes("set_config('synchronous_commit', 'off', true)"))).toHaveLength(2);
        expect(texts[2]).not.toContain('synchronous_commit');
        // SET LOCAL semantics: the session is back to the server's setting after the append's implicit transaction.
        const { rows } = await pool.query('SHOW synchronous_commit');
        expect(rows[0].synchronous_commit).toBe('on');
        // Same outcomes as a durable append: positions in order, visible to readers, idempotent by id.
        expect(many.every((outcome) => outcome.ok)).toBe(true);
        expect(strict.position).toBeGreaterThan(one.position);
        expect((await single.readStream('async-many-b')).map((stored) => stored.data)).toEqual([{ index: 2 }]);
        const [again] = await single.appendMany(
          [{ streamId: 'async-one', events: (await single.readStream('async-one')).map((stored) => ({ ...stored })) }],
          { durability: 'async' },
        );
        expect(again).toMatchObject({ ok: true, result: { position: one.position } });
      } finally {
        sent.mockRestore();
        await single.close();
      }
    });

    it('given a database without the ledger schema, when connecting, then it says to run migrations', async () => {
      const bare = await createTestDatabase({ migrate: false });
      try {
        await expect(PostgresEventStore.connect({ connectionString: bare.url })).rejects.toThrow(/run migrations/);
      } finally {
        await bare.drop();
      }
    });
  });
});
