import type { RecordedEvent } from '#server/ledger/event-store.port';

/** Reads a page of the ledger after `after` (EventStore.readAll's shape). */
export type PageReader = (after: number, maxCount: number) => Promise<RecordedEvent[]>;

/**
 * The ledger after `after`, page by page (`pageSize` events each) until a page comes back empty, with the next
 * page already being read while the caller works on the current one: as soon as a page arrives, its last position
 * is where the next one starts (positions only grow), so the read of page n+1 overlaps the fold of page n. At most
 * one read is ahead. A read that fails is thrown when the caller asks for that page; if the caller stops early,
 * the page read ahead is dropped (and its failure too).
 */
export async function* readAhead(read: PageReader, after: number, pageSize: number): AsyncGenerator<RecordedEvent[]> {
  let pending: Promise<RecordedEvent[]> | null = read(after, pageSize);
  try {
    while (pending) {
      const page = await pending;
      pending = null;
      if (page.length === 0) return;
      pending = read(page[page.length - 1].position, pageSize);
      yield page;
    }
  } finally {
    // Stopped early (or failed): nobody will await the page read ahead; keep its failure from going unhandled.
    pending?.catch(() => undefined);
  }
}
