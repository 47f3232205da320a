import type { RecordedEvent } from '#server/ledger/event-store.port';
import { EventBatcher } from './event-batcher';

const event = (position: number) => ({ position }) as RecordedEvent;
const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('EventBatcher', () => {
  it('given a full batch, when the last event is pushed, then push waits for the flush (back-pressure)', async () => {
    const flushed: number[][] = [];
    let release!: () => void;
    const batcher = new EventBatcher(
      async (events) => {
        await new Promise<void>((resolve) => (release = resolve));
        flushed.push(events.map((e) => e.position));
      },
      { maxSize: 3, lingerMs: 1000 },
      () => undefined,
    );
    await batcher.push(event(1));
    await batcher.push(event(2));
    let done = false;
    const third = batcher.push(event(3)).then(() => (done = true));
    await tick(20);
    expect(done).toBe(false);
    release();
    await third;
    expect(flushed).toEqual([[1, 2, 3]]);
  });

  it('given a partial batch, when linger passes, then it is flushed; a steady trickle cannot postpone it', async () => {
    const flushed: number[][] = [];
    const batcher = new EventBatcher(
      async (events) => {
        flushed.push(events.map((e) => e.position));
      },
      { maxSize: 100, lingerMs: 40 },
      () => undefined,
    );
    for (let position = 1; position <= 6; position++) {
      await batcher.push(event(position));
      await tick(15);
    }
    for (let waited = 0; flushed.flat().length < 6 && waited < 2000; waited += 10) await tick(10);
    expect(flushed.flat()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(flushed.length).toBeGreaterThanOrEqual(2);
  });

  it('given flushes in flight, when more are requested, then they commit one after another in order', async () => {
    const flushed: number[] = [];
    const batcher = new EventBatcher(
      async (events) => {
        await tick(events[0].position === 1 ? 30 : 1);
        flushed.push(...events.map((e) => e.position));
      },
      { maxSize: 1, lingerMs: 1000 },
      () => undefined,
    );
    await Promise.all([batcher.push(event(1)), batcher.push(event(2)), batcher.push(event(3))]);
    expect(flushed).toEqual([1, 2, 3]);
  });

  it('given a failing flush, when more events come, then it reports once and refuses them', async () => {
    const failures: unknown[] = [];
    const batcher = new EventBatcher(
      async () => {
        throw new Error('apply failed');
      },
      { maxSize: 2, lingerMs: 10 },
      (error) => failures.push(error),
    );
    await batcher.push(event(1));
    await expect(batcher.push(event(2))).rejects.toThrow('apply failed');
    await expect(batcher.push(event(3))).rejects.toThrow('apply failed');
    await expect(batcher.flush()).rejects.toThrow('apply failed');
    expect(failures).toHaveLength(1);
  });

  it('given buffered events, when discarded, then nothing is flushed', async () => {
    const flushed: number[] = [];
    const batcher = new EventBatcher(
      async (events) => {
        flushed.push(...events.map((e) => e.position));
      },
      { maxSize: 10, lingerMs: 20 },
      () => undefined,
    );
    await batcher.push(event(1));
    batcher.discard();
    await tick(40);
    expect(flushed).toEqual([]);
    expect(batcher.pending).toBe(0);
  });
});
