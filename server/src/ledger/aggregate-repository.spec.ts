import { randomUUID } from 'node:crypto';
import { loadAndAppend, type EventShape } from './aggregate-repository';
import { deterministicEventId } from './event-ids';
import { newEvent, systemActor } from './event-envelope';
import { type NewEvent, WrongExpectedRevisionError } from './event-store.port';
import { InMemoryEventStore } from './in-memory/in-memory-event-store';

/** A tiny counter aggregate: enough to watch folding, deciding and conflicts. */
type Counter = { total: number };
const evolve = (state: Counter, event: EventShape): Counter =>
  event.type === 'Added' ? { total: state.total + (event.data.amount as number) } : state;
const added = (amount: number, id: string = randomUUID()): NewEvent =>
  newEvent('Added', { amount }, { id, metadata: { correlationId: 'test', reasonCode: 'test', actor: systemActor() } });

describe('loadAndAppend', () => {
  it('given history, when deciding, then decide sees the folded state and the new events are appended after it', async () => {
    const store = new InMemoryEventStore();
    await store.appendToStream('counter-1', [added(2), added(3)]);
    const seen: Array<{ total: number; revision: number | 'no_stream' }> = [];
    const result = await loadAndAppend(
      store,
      'counter-1',
      evolve,
      { total: 0 },
      (state, stream) => {
        seen.push({ total: state.total, revision: stream.revision });
        return [added(10)];
      },
      { retries: 0 },
    );
    expect(seen).toEqual([{ total: 5, revision: 1 }]);
    expect(result).toMatchObject({ state: { total: 15 }, revision: 2, position: 3, attempts: 1 });
  });

  it('given a new stream, when deciding, then it appends expecting no stream', async () => {
    const store = new InMemoryEventStore();
    const result = await loadAndAppend(store, 'counter-2', evolve, { total: 0 }, () => [added(1)], { retries: 0 });
    expect(result).toMatchObject({ state: { total: 1 }, revision: 0 });
  });

  it('given decide returns nothing, then nothing is appended and the stream position is reported', async () => {
    const store = new InMemoryEventStore();
    await store.appendToStream('counter-3', [added(1)]);
    const result = await loadAndAppend(store, 'counter-3', evolve, { total: 0 }, () => [], { retries: 0 });
    expect(result).toMatchObject({ events: [], revision: 0, position: 1, state: { total: 1 } });
    expect(await store.headPosition()).toBe(1);
  });

  it('given a concurrent writer, when retries remain, then it reloads, decides again on fresh state and succeeds', async () => {
    const store = new InMemoryEventStore();
    await store.appendToStream('counter-4', [added(1)]);
    const totals: number[] = [];
    const result = await loadAndAppend(
      store,
      'counter-4',
      evolve,
      { total: 0 },
      async (state) => {
        totals.push(state.total);
        if (totals.length === 1) await store.appendToStream('counter-4', [added(100)]); // the other writer wins the race
        return [added(5)];
      },
      { retries: 2 },
    );
    expect(totals).toEqual([1, 101]);
    expect(result).toMatchObject({ state: { total: 106 }, attempts: 2 });
  });

  it('given a concurrent writer and retries 0 (an admin edit), then the conflict is rethrown and nothing is appended', async () => {
    const store = new InMemoryEventStore();
    await store.appendToStream('counter-5', [added(1)]);
    const attempt = loadAndAppend(
      store,
      'counter-5',
      evolve,
      { total: 0 },
      async () => {
        await store.appendToStream('counter-5', [added(100)]);
        return [added(5)];
      },
      { retries: 0 },
    );
    await expect(attempt).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect(await store.readStream('counter-5')).toHaveLength(2);
  });

  it('given a writer that always wins, when retries run out, then the last conflict is rethrown', async () => {
    const store = new InMemoryEventStore();
    let calls = 0;
    const attempt = loadAndAppend(
      store,
      'counter-6',
      evolve,
      { total: 0 },
      async () => {
        calls++;
        await store.appendToStream('counter-6', [added(1)]);
        return [added(5)];
      },
      { retries: 3 },
    );
    await expect(attempt).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect(calls).toBe(4);
  });

  it('given a domain error from decide, then it propagates without a retry', async () => {
    const store = new InMemoryEventStore();
    let calls = 0;
    const attempt = loadAndAppend(
      store,
      'counter-7',
      evolve,
      { total: 0 },
      () => {
        calls++;
        throw new Error('quota_insufficient');
      },
      { retries: 5 },
    );
    await expect(attempt).rejects.toThrow('quota_insufficient');
    expect(calls).toBe(1);
  });

  it('given a retried command whose events are stored, when decide emits the same ids, then state is not counted twice', async () => {
    const store = new InMemoryEventStore();
    const id = deterministicEventId('test-request', 'req-1');
    await store.appendToStream('counter-8', [added(7, id)]);
    const result = await loadAndAppend(store, 'counter-8', evolve, { total: 0 }, () => [added(7, id)], { retries: 0 });
    expect(result).toMatchObject({ state: { total: 7 }, revision: 0, position: 1 });
    expect(await store.readStream('counter-8')).toHaveLength(1);
  });
});
