import type { RecordedEvent } from '#server/ledger/event-store.port';
import { inLanes } from './in-lanes';
import { readAhead } from './read-ahead';

const event = (position: number) => ({ position }) as RecordedEvent;

/** A ledger of `head` events read in pages, recording each read and whether one was in flight meanwhile. */
function ledger(head: number) {
  const reads: Array<{ after: number; maxCount: number }> = [];
  let inFlight = 0;
  let overlapped = false;
  const read = async (after: number, maxCount: number) => {
    reads.push({ after, maxCount });
    inFlight++;
    await new Promise((resolve) => setTimeout(resolve, 1));
    inFlight--;
    const events: RecordedEvent[] = [];
    for (let position = after + 1; position <= Math.min(head, after + maxCount); position++) events.push(event(position));
    return events;
  };
  return { read, reads, inFlight: () => inFlight, overlapped: () => overlapped, markOverlap: () => (overlapped ||= inFlight > 0) };
}

describe('readAhead', () => {
  it('yields every page in order and has the next page read while the caller works on the current one', async () => {
    const source = ledger(10);
    const pages: number[][] = [];
    for await (const page of readAhead(source.read, 0, 4)) {
      source.markOverlap(); // the caller's work on this page: the next read is already under way
      await new Promise((resolve) => setTimeout(resolve, 5));
      pages.push(page.map((e) => e.position));
    }
    expect(pages).toEqual([
      [1, 2, 3, 4],
      [5, 6, 7, 8],
      [9, 10],
    ]);
    expect(source.overlapped()).toBe(true);
    expect(source.reads).toEqual([
      { after: 0, maxCount: 4 },
      { after: 4, maxCount: 4 },
      { after: 8, maxCount: 4 },
      { after: 10, maxCount: 4 },
    ]);
  });

  it('starts after the given position and ends at once on an empty ledger', async () => {
    const source = ledger(3);
    const pages: number[][] = [];
    for await (const page of readAhead(source.read, 3, 5)) pages.push(page.map((e) => e.position));
    expect(pages).toEqual([]);
    expect(source.reads).toEqual([{ after: 3, maxCount: 5 }]);
  });

  it('throws a failed read when its page is asked for, after the pages before it', async () => {
    let calls = 0;
    const read = async (after: number) => {
      if (++calls === 2) throw new Error('connection lost');
      return [event(after + 1)];
    };
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const page of readAhead(read, 0, 1)) seen.push(page[0].position);
      })(),
    ).rejects.toThrow('connection lost');
    expect(seen).toEqual([1]);
  });

  it('a caller that stops early leaves no unhandled failure of the page read ahead', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      let calls = 0;
      const read = async (after: number) => {
        if (++calls === 2) throw new Error('not wanted');
        return [event(after + 1)];
      };
      for await (const page of readAhead(read, 0, 1)) {
        expect(page[0].position).toBe(1);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('inLanes', () => {
  it('runs every item, never more than `lanes` at once, taking them in order', async () => {
    let running = 0;
    let most = 0;
    const started: number[] = [];
    await inLanes([1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
      started.push(item);
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, item % 2 ? 5 : 1));
      running--;
    });
    expect(started).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
  });

  it('one lane is one after another', async () => {
    const order: string[] = [];
    await inLanes(['a', 'b', 'c'], 1, async (item) => {
      order.push(`start ${item}`);
      await new Promise((resolve) => setTimeout(resolve, 1));
      order.push(`end ${item}`);
    });
    expect(order).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });

  it('throws the first failure once the running items have ended, and starts no new item after it', async () => {
    const ended: number[] = [];
    const error = await inLanes([1, 2, 3, 4], 2, async (item) => {
      if (item === 1) throw new Error('first');
      await new Promise((resolve) => setTimeout(resolve, 5));
      ended.push(item);
    }).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe('first');
    expect(ended).toEqual([2]);
  });
});
