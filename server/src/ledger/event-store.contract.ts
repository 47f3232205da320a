import { randomUUID } from 'node:crypto';
// Explicit, so the suite also compiles where jest's globals are not declared (the server build).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { newEvent, systemActor } from './event-envelope';
import {
  EventIdConflictError,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  WrongExpectedRevisionError,
} from './event-store.port';

export interface EventStoreFixture {
  store: EventStore;
  dispose(): Promise<void>;
}

export interface EventStoreContractOptions {
  /**
   * Whether an event id already stored in one stream is refused in another. The Postgres and in-memory stores hold
   * ids in one unique index ('rejected', the default). EventStoreDB checks ids only within the stream written to
   * ('accepted': the append is written), so for it the same cases assert that weaker, documented behaviour
   * (docs/ledger.md).
   */
  idInOtherStream?: 'rejected' | 'accepted';
}

/** A unique stream per test, so the suite also runs against a shared server that holds other data. */
const streamName = (label: string) => `contract_${label}-${randomUUID().slice(0, 8)}`;

function sampleEvent(index: number, id: string = randomUUID()): NewEvent {
  return newEvent(
    'SampleRecorded',
    { index },
    {
      id,
      metadata: { correlationId: `contract-${index}`, reasonCode: 'contract_test', actor: systemActor() },
    },
  );
}

const sample = (count: number, from = 0) => Array.from({ length: count }, (_, i) => sampleEvent(from + i));

async function waitUntil(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function expectConflict(promise: Promise<unknown>, actual: number | 'no_stream'): Promise<void> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(WrongExpectedRevisionError);
  expect((error as WrongExpectedRevisionError).actual).toBe(actual);
}

function expectStrictlyIncreasing(positions: number[]): void {
  for (let i = 1; i < positions.length; i++) expect(positions[i]).toBeGreaterThan(positions[i - 1]);
}

/**
 * The behaviour every EventStore adapter promises. Run it from each adapter's spec with a factory that returns a
 * ready store; the suite never assumes an empty store (it reads relative to the head and to its own streams).
 */
export function describeEventStoreContract(
  name: string,
  factory: () => Promise<EventStoreFixture>,
  options: EventStoreContractOptions = {},
): void {
  const rejectsOtherStreamIds = (options.idInOtherStream ?? 'rejected') === 'rejected';
  describe(`EventStore contract: ${name}`, () => {
    let fixture: EventStoreFixture;
    let store: EventStore;
    beforeAll(async () => {
      fixture = await factory();
      store = fixture.store;
    });
    afterAll(async () => {
      await fixture?.dispose();
    });

    const readMine = async (after: number, streams: string[]) =>
      (await store.readAll({ after })).filter((event) => streams.includes(event.streamId));

    describe('ordering', () => {
      it('given a new stream, when appending batches, then revisions count from 0 and positions strictly increase', async () => {
        const stream = streamName('order');
        const first = await store.appendToStream(stream, sample(3));
        const second = await store.appendToStream(stream, sample(2, 3));
        expect(first.nextExpectedRevision).toBe(2);
        expect(second.nextExpectedRevision).toBe(4);
        expect(second.position).toBeGreaterThan(first.position);
        const events = await store.readStream(stream);
        expect(events.map((event) => event.revision)).toEqual([0, 1, 2, 3, 4]);
        expect(events.map((event) => event.data.index)).toEqual([0, 1, 2, 3, 4]);
        expectStrictlyIncreasing(events.map((event) => event.position));
        expect(events[2].position).toBe(first.position);
        expect(events[4].position).toBe(second.position);
        expect(events[0]).toMatchObject({ streamId: stream, type: 'SampleRecorded' });
        expect(events[0].metadata).toMatchObject({ correlationId: 'contract-0', reasonCode: 'contract_test', actor: { type: 'system' } });
        expect(events[0].createdAt).toBeInstanceOf(Date);
        expect(await store.headPosition()).toBeGreaterThanOrEqual(second.position);
      });

      it('given appends to several streams, when reading all, then positions strictly increase in append order', async () => {
        const head = await store.headPosition();
        const streams = [streamName('a'), streamName('b'), streamName('c')];
        const appended: string[] = [];
        for (let round = 0; round < 3; round++) {
          for (const stream of streams) {
            const event = sampleEvent(round);
            appended.push(event.id);
            await store.appendToStream(stream, [event]);
          }
        }
        const all = await readMine(head, streams);
        expect(all.map((event) => event.id)).toEqual(appended);
        expectStrictlyIncreasing(all.map((event) => event.position));
      });
    });

    describe('expected revision', () => {
      const cases: Array<{ expected: ExpectedRevision; existing: number; ok: boolean; actual: number | 'no_stream' }> = [
        { expected: 'any', existing: 0, ok: true, actual: 'no_stream' },
        { expected: 'any', existing: 2, ok: true, actual: 1 },
        { expected: 'no_stream', existing: 0, ok: true, actual: 'no_stream' },
        { expected: 'no_stream', existing: 1, ok: false, actual: 0 },
        { expected: 'stream_exists', existing: 0, ok: false, actual: 'no_stream' },
        { expected: 'stream_exists', existing: 1, ok: true, actual: 0 },
        { expected: 1, existing: 2, ok: true, actual: 1 },
        { expected: 0, existing: 2, ok: false, actual: 1 },
        { expected: 5, existing: 2, ok: false, actual: 1 },
        { expected: 0, existing: 0, ok: false, actual: 'no_stream' },
      ];
      it.each(cases)(
        'given $existing events, when appending expecting $expected, then ok=$ok',
        async ({ expected, existing, ok, actual }) => {
          const stream = streamName('expected');
          if (existing) await store.appendToStream(stream, sample(existing));
          const attempt = store.appendToStream(stream, sample(1, existing), { expectedRevision: expected });
          if (ok) {
            await expect(attempt).resolves.toMatchObject({ nextExpectedRevision: existing });
          } else {
            await expectConflict(attempt, actual);
            expect(await store.readStream(stream)).toHaveLength(existing);
          }
        },
      );
    });

    describe('idempotency by event id', () => {
      it('given a stored batch, when the same batch is appended again, then it is a no-op returning the original position', async () => {
        const stream = streamName('dup');
        const batch = sample(2);
        const first = await store.appendToStream(stream, batch, { expectedRevision: 'no_stream' });
        const again = await store.appendToStream(stream, batch, { expectedRevision: 'no_stream' });
        const withAny = await store.appendToStream(stream, batch);
        expect(again).toEqual(first);
        expect(withAny).toEqual(first);
        expect(await store.readStream(stream)).toHaveLength(2);
      });

      it('given the stream moved on, when a retried batch arrives with its stale expected revision, then it is still a no-op', async () => {
        const stream = streamName('retry');
        const batch = sample(1);
        const first = await store.appendToStream(stream, batch, { expectedRevision: 'no_stream' });
        await store.appendToStream(stream, sample(2, 1), { expectedRevision: 0 });
        await expect(store.appendToStream(stream, batch, { expectedRevision: 'no_stream' })).resolves.toEqual(first);
        expect(await store.readStream(stream)).toHaveLength(3);
      });

      it('given a stored event, when a batch repeats it followed by a new event, then the batch is rejected and nothing is written', async () => {
        const stream = streamName('mixed');
        const [existing] = sample(1);
        await store.appendToStream(stream, [existing]);
        const error = await store.appendToStream(stream, [existing, sampleEvent(1)]).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(EventIdConflictError);
        expect(await store.readStream(stream)).toHaveLength(1);
      });

      it(`given an id stored in another stream, when a batch reuses it, then ${rejectsOtherStreamIds ? 'the batch is rejected and nothing is written' : 'it is written there (ids are per stream)'}`, async () => {
        const first = streamName('owner');
        const second = streamName('thief');
        const [event] = sample(1);
        await store.appendToStream(first, [event]);
        if (!rejectsOtherStreamIds) {
          expect(await store.appendToStream(second, [event])).toMatchObject({ nextExpectedRevision: 0 });
          expect((await store.readStream(second)).map((stored) => stored.id)).toEqual([event.id]);
          expect(await store.readStream(first)).toHaveLength(1);
          return;
        }
        const error = await store.appendToStream(second, [event]).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(EventIdConflictError);
        expect((error as EventIdConflictError).reason).toBe('id_in_other_stream');
        expect(await store.readStream(second)).toEqual([]);
        expect(await store.readStream(first)).toHaveLength(1);
      });

      it('given a duplicate append, when reading all and subscribing, then the event appears once', async () => {
        const stream = streamName('dupread');
        const head = await store.headPosition();
        const batch = sample(2);
        await store.appendToStream(stream, batch);
        await store.appendToStream(stream, batch);
        await store.appendToStream(stream, batch, { expectedRevision: 'no_stream' });
        await store.appendToStream(stream, sample(1, 2));
        expect((await readMine(head, [stream])).map((event) => event.data.index)).toEqual([0, 1, 2]);
        const received: RecordedEvent[] = [];
        const subscription = store.subscribeToAll({ after: head }, async (event) => {
          if (event.streamId === stream) received.push(event);
        });
        try {
          await waitUntil(() => received.length >= 3);
          await store.appendToStream(stream, batch);
          await new Promise((resolve) => setTimeout(resolve, 100));
          expect(received.map((event) => event.data.index)).toEqual([0, 1, 2]);
        } finally {
          await subscription.close();
        }
      });

      it('given a batch naming one id twice, when appended, then it is rejected', async () => {
        const stream = streamName('twice');
        const id = randomUUID();
        await expect(store.appendToStream(stream, [sampleEvent(0, id), sampleEvent(1, id)])).rejects.toBeInstanceOf(EventIdConflictError);
        expect(await store.readStream(stream)).toEqual([]);
      });
    });

    describe('appendMany (group commit)', () => {
      it('given appends to several streams, when appended together, then each gets the result its own append would', async () => {
        const [a, b] = [streamName('many-a'), streamName('many-b')];
        await store.appendToStream(b, sample(1));
        const head = await store.headPosition();
        const outcomes = await store.appendMany([
          { streamId: a, events: sample(2), expectedRevision: 'no_stream' },
          { streamId: b, events: sample(1, 1), expectedRevision: 0 },
          { streamId: a, events: sample(1, 2) },
        ]);
        expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true, true]);
        const results = outcomes.map((outcome) => (outcome.ok ? outcome.result : null));
        expect(results.map((result) => result?.nextExpectedRevision)).toEqual([1, 1, 2]);
        const positions = results.map((result) => result!.position);
        expectStrictlyIncreasing(positions);
        expect(positions[0]).toBeGreaterThan(head);
        expect((await store.readStream(a)).map((event) => event.data.index)).toEqual([0, 1, 2]);
        expect((await store.readStream(b)).map((event) => event.revision)).toEqual([0, 1]);
        const all = await store.readAll({ after: head });
        expect(all.filter((event) => event.streamId === a || event.streamId === b)).toHaveLength(4);
        expect((await store.readStream(a))[2].position).toBe(positions[2]);
      });

      it('given a conflicting request in the batch, when appended, then only that one fails and writes nothing', async () => {
        const [ok, conflicted, mixed] = [streamName('many-ok'), streamName('many-conflict'), streamName('many-mixed')];
        await store.appendToStream(conflicted, sample(2));
        const [stored] = sample(1);
        await store.appendToStream(mixed, [stored]);
        const outcomes = await store.appendMany([
          { streamId: conflicted, events: sample(1, 2), expectedRevision: 0 },
          { streamId: ok, events: sample(1) },
          { streamId: mixed, events: [stored, sampleEvent(1)] },
          { streamId: ok, events: [sampleEvent(5, randomUUID()), sampleEvent(6, stored.id)] },
        ]);
        // The last request reuses, after a new id, an id stored in another stream.
        expect(outcomes.map((outcome) => outcome.ok)).toEqual([false, true, false, !rejectsOtherStreamIds]);
        const errors = outcomes.map((outcome) => (outcome.ok ? null : outcome.error));
        expect(errors[0]).toBeInstanceOf(WrongExpectedRevisionError);
        expect((errors[0] as WrongExpectedRevisionError).actual).toBe(1);
        expect(errors[2]).toBeInstanceOf(EventIdConflictError);
        if (rejectsOtherStreamIds) expect(errors[3]).toBeInstanceOf(EventIdConflictError);
        expect(await store.readStream(conflicted)).toHaveLength(2);
        expect(await store.readStream(mixed)).toHaveLength(1);
        expect(await store.readStream(ok)).toHaveLength(rejectsOtherStreamIds ? 1 : 3);
      });

      it('given stored event ids, when a batch repeats them (also twice in one batch), then those appends are no-ops', async () => {
        const stream = streamName('many-dup');
        const event = sampleEvent(0);
        const first = await store.appendToStream(stream, [event]);
        const retry = sampleEvent(1);
        const outcomes = await store.appendMany([
          { streamId: stream, events: [event] },
          { streamId: stream, events: [retry] },
          { streamId: stream, events: [retry] },
        ]);
        expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true, true]);
        const results = outcomes.map((outcome) => (outcome.ok ? outcome.result : null));
        expect(results[0]).toEqual(first);
        expect(results[2]).toEqual(results[1]);
        expect(await store.readStream(stream)).toHaveLength(2);
      });

      it('given an empty batch or an invalid request, when appended, then nothing is written and the rest goes through', async () => {
        expect(await store.appendMany([])).toEqual([]);
        const stream = streamName('many-invalid');
        const outcomes = await store.appendMany([
          { streamId: stream, events: [{ ...sampleEvent(0), id: 'not-a-uuid' }] },
          { streamId: stream, events: sample(1) },
        ]);
        expect(outcomes[0].ok).toBe(false);
        expect(outcomes[1]).toMatchObject({ ok: true, result: { nextExpectedRevision: 0 } });
      });

      // The relay's shape: up to 64 'any' appends, several to the same account stream. These batches have at least four
      // requests, all 'any', so on Postgres they take ledger_append_many's set-based path (migration 1732300005100).
      it('given 64 appends to a few streams, each several times, when appended together, then positions follow the batch and every stream counts on in batch order', async () => {
        const streams = ['a', 'b', 'c', 'd', 'e'].map((label) => streamName(`many64-${label}`));
        await store.appendToStream(streams[1], sample(3));
        const head = await store.headPosition();
        let index = 0;
        const requests = Array.from({ length: 64 }, (_, i) => {
          const events = sample(i % 9 === 0 ? 2 : 1, index); // every ninth request carries two events
          index += events.length;
          return { streamId: streams[[0, 1, 0, 2, 3, 0, 4, 1][i % 8]], events };
        });
        const outcomes = await store.appendMany(requests);
        expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
        const results = outcomes.map((outcome) => (outcome.ok ? outcome.result : null)!);
        expectStrictlyIncreasing(results.map((result) => result.position));
        expect(results[0].position).toBeGreaterThan(head);

        // Each request's revision is its stream's count so far (earlier requests of the batch included), minus one.
        const counts = new Map<string, number>([[streams[1], 3]]);
        requests.forEach((request, i) => {
          counts.set(request.streamId, (counts.get(request.streamId) ?? 0) + request.events.length);
          expect({ i, revision: results[i].nextExpectedRevision }).toEqual({ i, revision: counts.get(request.streamId)! - 1 });
        });
        for (const stream of streams) {
          const stored = await store.readStream(stream);
          const mine = requests.filter((request) => request.streamId === stream).flatMap((request) => request.events);
          expect(stored.map((event) => event.revision)).toEqual(stored.map((_, i) => i));
          expect(stored.slice(stream === streams[1] ? 3 : 0).map((event) => event.id)).toEqual(mine.map((event) => event.id));
        }
        // Every result's position is that of its request's last event; readAll sees the batch in request order.
        const all = await readMine(head, streams);
        expect(all.map((event) => event.id)).toEqual(requests.flatMap((request) => request.events.map((event) => event.id)));
        const positionOf = new Map(all.map((event) => [event.id, event.position]));
        requests.forEach((request, i) => expect(results[i].position).toBe(positionOf.get(request.events[request.events.length - 1].id)));
      });

      it('given an event already stored, when a batch repeats it among new appends to the same stream, then that append answers the stored revision and position and the others go on', async () => {
        const [stream, other] = [streamName('many-stored'), streamName('many-stored-other')];
        const stored = sampleEvent(0);
        await store.appendToStream(stream, [stored, sampleEvent(1)]);
        const [original] = await store.readStream(stream);
        const outcomes = await store.appendMany([
          { streamId: stream, events: [sampleEvent(2)] },
          { streamId: stream, events: [stored] },
          { streamId: other, events: [sampleEvent(3)] },
          { streamId: stream, events: [sampleEvent(4)] },
        ]);
        expect(outcomes.map((outcome) => (outcome.ok ? outcome.result.nextExpectedRevision : outcome.error))).toEqual([2, 0, 0, 3]);
        expect(outcomes[1]).toEqual({ ok: true, result: { nextExpectedRevision: 0, position: original.position } });
        expect((await store.readStream(stream)).map((event) => event.data.index)).toEqual([0, 1, 2, 4]);
        expect(await store.readStream(other)).toHaveLength(1);
      });

      it('given the same new event twice in one batch, when appended, then the second is a no-op answering the first, and in another stream a conflict', async () => {
        const [stream, other, pair] = [streamName('many-twice'), streamName('many-twice-other'), streamName('many-twice-pair')];
        const twice = sampleEvent(0);
        const [a, b] = sample(2, 10);
        const outcomes = await store.appendMany([
          { streamId: stream, events: [twice] },
          { streamId: other, events: [sampleEvent(1)] },
          { streamId: stream, events: [twice] },
          { streamId: other, events: [twice] },
          { streamId: stream, events: [sampleEvent(2)] },
          { streamId: pair, events: [a, b] },
          { streamId: pair, events: [b, a] },
        ]);
        expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true, true, !rejectsOtherStreamIds, true, true, true]);
        const results = outcomes.map((outcome) => (outcome.ok ? outcome.result : null));
        expect(results[2]).toEqual(results[0]);
        expect(results[0]?.nextExpectedRevision).toBe(0);
        expect(results[4]?.nextExpectedRevision).toBe(1);
        expect(results[6]).toEqual(results[5]);
        expect(results[5]?.nextExpectedRevision).toBe(1);
        if (rejectsOtherStreamIds) {
          const conflict = outcomes[3].ok ? null : outcomes[3].error;
          expect(conflict).toBeInstanceOf(EventIdConflictError);
          expect(conflict).toMatchObject({ reason: 'id_in_other_stream', eventIds: [twice.id] });
        }
        expect((await store.readStream(stream)).map((event) => event.data.index)).toEqual([0, 2]);
        expect((await store.readStream(other)).map((event) => event.data.index)).toEqual(rejectsOtherStreamIds ? [1] : [1, 0]);
        expect((await store.readStream(pair)).map((event) => event.id)).toEqual([a.id, b.id]);
      });

      it('given an event id stored in another stream, when a batch reuses it, then only that append fails and writes nothing', async () => {
        const [owner, thief] = [streamName('many-owner'), streamName('many-thief')];
        const [taken] = sample(1);
        await store.appendToStream(owner, [taken]);
        const outcomes = await store.appendMany([
          { streamId: thief, events: [taken] },
          { streamId: thief, events: [sampleEvent(1)] },
          { streamId: owner, events: [sampleEvent(2)] },
          { streamId: thief, events: [sampleEvent(3)] },
        ]);
        if (rejectsOtherStreamIds) {
          const conflict = outcomes[0].ok ? null : outcomes[0].error;
          expect(conflict).toBeInstanceOf(EventIdConflictError);
          expect(conflict).toMatchObject({ reason: 'id_in_other_stream', eventIds: [taken.id] });
        } else {
          expect(outcomes[0]).toMatchObject({ ok: true, result: { nextExpectedRevision: 0 } });
        }
        const thiefRevisions = rejectsOtherStreamIds ? [0, 1, 1] : [1, 1, 2];
        expect(outcomes.slice(1).map((outcome) => outcome.ok && outcome.result.nextExpectedRevision)).toEqual(thiefRevisions);
        expect((await store.readStream(thief)).map((event) => event.data.index)).toEqual(rejectsOtherStreamIds ? [1, 3] : [0, 1, 3]);
        expect((await store.readStream(owner)).map((event) => event.id)).toEqual([taken.id, expect.any(String)]);
      });

      it('given a live subscription, when a batch is appended, then it delivers every event of the batch in order', async () => {
        const head = await store.headPosition();
        const streams = [streamName('many-live-a'), streamName('many-live-b')];
        const seen: RecordedEvent[] = [];
        const subscription = store.subscribeToAll({ after: head }, async (event) => {
          if (streams.includes(event.streamId)) seen.push(event);
        });
        try {
          await store.appendMany(streams.map((streamId) => ({ streamId, events: sample(2) })));
          await waitUntil(() => seen.length === 4);
          expectStrictlyIncreasing(seen.map((event) => event.position));
        } finally {
          await subscription.close();
        }
      });
    });

    describe('reads', () => {
      it('given a stream, when reading from a revision with a max count, then exactly that window comes back', async () => {
        const stream = streamName('window');
        await store.appendToStream(stream, sample(6));
        const window = await store.readStream(stream, { fromRevision: 2, maxCount: 3 });
        expect(window.map((event) => event.revision)).toEqual([2, 3, 4]);
        expect(await store.readStream(stream, { fromRevision: 6 })).toEqual([]);
        expect(await store.readStream(streamName('missing'))).toEqual([]);
      });

      it('given a position, when reading all after it, then only later events come back, limited by maxCount', async () => {
        const stream = streamName('after');
        await store.appendToStream(stream, sample(2));
        const middle = await store.appendToStream(stream, sample(3, 2));
        const all = await store.readStream(stream);
        const afterSecond = await readMine(all[1].position, [stream]);
        expect(afterSecond.map((event) => event.revision)).toEqual([2, 3, 4]);
        const limited = await store.readAll({ after: all[1].position, maxCount: 2 });
        expect(limited).toHaveLength(2);
        expect(limited[0].position).toBeGreaterThan(all[1].position);
        expect(await readMine(middle.position, [stream])).toEqual([]);
      });

      it('given the head position, when reading all after it, then nothing comes back until the next append', async () => {
        const stream = streamName('head');
        await store.appendToStream(stream, sample(1));
        const head = await store.headPosition();
        expect(await readMine(head, [stream])).toEqual([]);
        const next = await store.appendToStream(stream, sample(1, 1));
        const after = await readMine(head, [stream]);
        expect(after.map((event) => event.position)).toEqual([next.position]);
        // Reading from the start (no position) includes this stream's first event.
        const firstPosition = (await store.readStream(stream))[0].position;
        const fromStart = await store.readAll({ maxCount: 1 });
        expect(fromStart).toHaveLength(1);
        expect(fromStart[0].position).toBeLessThanOrEqual(firstPosition);
      });
    });

    describe('subscriptions', () => {
      it('given stored events, when subscribing, then it catches up and then receives live events in order', async () => {
        const stream = streamName('live');
        const head = await store.headPosition();
        await store.appendToStream(stream, sample(3));
        const received: RecordedEvent[] = [];
        const subscription = store.subscribeToAll({ after: head }, async (event) => {
          if (event.streamId === stream) received.push(event);
        });
        try {
          await waitUntil(() => received.length === 3);
          await store.appendToStream(stream, sample(2, 3));
          await waitUntil(() => received.length === 5);
          expect(received.map((event) => event.data.index)).toEqual([0, 1, 2, 3, 4]);
          expectStrictlyIncreasing(received.map((event) => event.position));
        } finally {
          await subscription.close();
        }
      });

      it('given a closed subscription, when reopened from the last handled position, then it gets exactly the rest', async () => {
        const stream = streamName('resume');
        const head = await store.headPosition();
        await store.appendToStream(stream, sample(5));
        const firstRun: RecordedEvent[] = [];
        let checkpoint = head;
        const first = store.subscribeToAll({ after: head }, async (event) => {
          if (event.streamId !== stream || firstRun.length === 2) return;
          firstRun.push(event);
          checkpoint = event.position;
        });
        await waitUntil(() => firstRun.length === 2);
        await first.close();
        await store.appendToStream(stream, sample(2, 5));

        const secondRun: RecordedEvent[] = [];
        const second = store.subscribeToAll({ after: checkpoint }, async (event) => {
          if (event.streamId === stream) secondRun.push(event);
        });
        try {
          await waitUntil(() => secondRun.length === 5);
          await new Promise((resolve) => setTimeout(resolve, 100));
          expect([...firstRun, ...secondRun].map((event) => event.data.index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
        } finally {
          await second.close();
        }
      });

      it('given a checkpoint at an event, when subscribing after it, then that event is not delivered again but every later one is', async () => {
        const streams = [streamName('cpa'), streamName('cpb')];
        const head = await store.headPosition();
        for (let i = 0; i < 3; i++) for (const stream of streams) await store.appendToStream(stream, [sampleEvent(i)]);
        const mine = await readMine(head, streams);
        const checkpoint = mine[2].position; // the third of six, on the first stream
        const received: RecordedEvent[] = [];
        const subscription = store.subscribeToAll({ after: checkpoint }, async (event) => {
          if (streams.includes(event.streamId)) received.push(event);
        });
        try {
          await waitUntil(() => received.length === 3);
          await new Promise((resolve) => setTimeout(resolve, 100));
          expect(received.map((event) => event.id)).toEqual(mine.slice(3).map((event) => event.id));
        } finally {
          await subscription.close();
        }
      });

      it('given a handler that fails, when an event arrives, then the subscription stops and reports the error', async () => {
        const stream = streamName('fail');
        const head = await store.headPosition();
        await store.appendToStream(stream, sample(2));
        const errors: unknown[] = [];
        let calls = 0;
        const subscription = store.subscribeToAll(
          { after: head },
          async (event) => {
            if (event.streamId !== stream) return;
            calls++;
            throw new Error('projection bug');
          },
          (error) => errors.push(error),
        );
        await waitUntil(() => errors.length === 1);
        await store.appendToStream(stream, sample(1, 2));
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(calls).toBe(1);
        expect((errors[0] as Error).message).toBe('projection bug');
        await subscription.close();
      });
    });

    describe('concurrency', () => {
      it('given concurrent appenders and a live reader, when they all finish, then nothing is lost or duplicated', async () => {
        const head = await store.headPosition();
        const streams = Array.from({ length: 4 }, (_, i) => streamName(`conc${i}`));
        const shared = streamName('shared');
        const seen: RecordedEvent[] = [];
        const subscription = store.subscribeToAll({ after: head }, async (event) => {
          if (event.streamId === shared || streams.includes(event.streamId)) seen.push(event);
        });
        const writers = streams.map(async (stream) => {
          for (let i = 0; i < 15; i++) {
            await store.appendToStream(stream, sample(2, i * 2));
            await store.appendToStream(shared, [sampleEvent(i)]);
          }
        });
        await Promise.all(writers);
        const total = streams.length * 15 * 3;
        try {
          await waitUntil(() => seen.length >= total, 15000);
          await new Promise((resolve) => setTimeout(resolve, 100));
          expect(seen).toHaveLength(total);
          expect(new Set(seen.map((event) => event.id)).size).toBe(total);
          expectStrictlyIncreasing(seen.map((event) => event.position));
          const all = await readMine(head, [shared, ...streams]);
          expect(all.map((event) => event.id)).toEqual(seen.map((event) => event.id));
          for (const stream of [shared, ...streams]) {
            const revisions = all.filter((event) => event.streamId === stream).map((event) => event.revision);
            expect(revisions).toEqual(revisions.map((_, i) => i));
          }
        } finally {
          await subscription.close();
        }
      });

      it('given racing writers expecting the same revision, when they append, then exactly one wins', async () => {
        const stream = streamName('race');
        await store.appendToStream(stream, sample(1));
        const results = await Promise.allSettled(
          Array.from({ length: 5 }, (_, i) => store.appendToStream(stream, [sampleEvent(i + 1)], { expectedRevision: 0 })),
        );
        expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
        for (const result of results) {
          if (result.status === 'rejected') expect(result.reason).toBeInstanceOf(WrongExpectedRevisionError);
        }
        expect(await store.readStream(stream)).toHaveLength(2);
      });
    });
  });
}
