import { randomUUID } from 'node:crypto';

/**
 * The in-memory log behind the fake EventStoreDB server (esdb-server.ts): one transaction log ($all) and its
 * per-stream views, with the write checks of a real node (EventStoreDB's commit check):
 * - expected revision exact / no_stream: written when it equals the stream's current revision; when it is behind
 *   and the events after it carry the batch's ids, the append is idempotent (reported without a position);
 *   a partial match (or none) is WrongExpectedVersion.
 * - any: written, unless the batch's first id is already in this stream (then idempotent or, on a partial match,
 *   WrongExpectedVersion); an id stored in another stream does not stop the write, as on a real node.
 * - stream_exists: WrongExpectedVersion when the stream has no events, else as any.
 * Positions are byte-like log offsets (not consecutive); every event's commit position equals its prepare position.
 */
export interface ProposedEvent {
  id: string;
  type: string;
  contentType: string;
  data: Uint8Array;
  customMetadata: Uint8Array;
}

export interface StoredEvent extends ProposedEvent {
  streamId: string;
  revision: number;
  position: bigint;
  /** 100 ns ticks since the Unix epoch, as the server's `created` metadata entry carries them. */
  createdTicks: bigint;
}

export type Expected = 'any' | 'no_stream' | 'stream_exists' | bigint;
export type Current = bigint | 'no_stream';

export type AppendOutcome =
  | { kind: 'written'; revision: Current; position: bigint | null }
  | { kind: 'wrong_expected_version'; current: Current };

const FIRST_POSITION = BigInt(4096);

export class FakeEventLog {
  readonly all: StoredEvent[] = [];
  private readonly streams = new Map<string, StoredEvent[]>();
  private nextPosition = FIRST_POSITION;
  private readonly listeners = new Set<() => void>();

  /** A fresh node is not empty: it holds its own `$`-prefixed events, which readers must skip. */
  seedSystemEvents(): void {
    const json = (value: unknown): Uint8Array => Buffer.from(JSON.stringify(value));
    for (const [streamId, type] of [
      ['$users', '$UserCreated'],
      ['$settings', '$update-default-acl'],
    ]) {
      this.write(streamId, [
        { id: randomUUID(), type, contentType: 'application/json', data: json({ seeded: true }), customMetadata: json({}) },
      ]);
    }
  }

  current(streamId: string): Current {
    const stream = this.streams.get(streamId);
    return stream && stream.length ? BigInt(stream.length - 1) : 'no_stream';
  }

  stream(streamId: string): StoredEvent[] | undefined {
    return this.streams.get(streamId);
  }

  onAppend(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  append(streamId: string, expected: Expected, events: ProposedEvent[]): AppendOutcome {
    const current = this.current(streamId);
    const stream = this.streams.get(streamId) ?? [];
    const wrong: AppendOutcome = { kind: 'wrong_expected_version', current };
    if (expected === 'stream_exists' && current === 'no_stream') return wrong;
    if (expected === 'any' || expected === 'stream_exists') {
      const first = events.length ? stream.findIndex((event) => sameId(event.id, events[0].id)) : -1;
      if (first >= 0) return this.idempotent(stream, first, events) ?? wrong;
      return this.write(streamId, events);
    }
    const expectedNumber = expected === 'no_stream' ? BigInt(-1) : expected;
    const currentNumber = current === 'no_stream' ? BigInt(-1) : current;
    if (expectedNumber === currentNumber) return this.write(streamId, events);
    if (expectedNumber < currentNumber && events.length) {
      const start = Number(expectedNumber + BigInt(1));
      if (sameId(stream[start]?.id ?? '', events[0].id)) return this.idempotent(stream, start, events) ?? wrong;
    }
    return wrong;
  }

  private idempotent(stream: StoredEvent[], start: number, events: ProposedEvent[]): AppendOutcome | null {
    const all = events.every((event, index) => stream[start + index] && sameId(stream[start + index].id, event.id));
    return all ? { kind: 'written', revision: BigInt(start + events.length - 1), position: null } : null;
  }

  private write(streamId: string, events: ProposedEvent[]): AppendOutcome {
    const stream = this.streams.get(streamId) ?? [];
    if (!events.length) return { kind: 'written', revision: this.current(streamId), position: null };
    let position = this.nextPosition;
    for (const event of events) {
      position = this.nextPosition;
      const stored: StoredEvent = {
        ...event,
        streamId,
        revision: stream.length,
        position,
        createdTicks: BigInt(Date.now()) * BigInt(10_000),
      };
      stream.push(stored);
      this.all.push(stored);
      // A prepare record's size: header, stream name, type, payloads; rounded like the chunk writer's alignment.
      const size = 120 + streamId.length + event.type.length + event.data.length + event.customMetadata.length;
      this.nextPosition += BigInt(Math.ceil(size / 8) * 8);
    }
    this.streams.set(streamId, stream);
    for (const listener of [...this.listeners]) listener();
    return { kind: 'written', revision: BigInt(stream.length - 1), position };
  }

  /** Index of the first event of $all at or after `position` (forwards) — binary search over the ordered log. */
  indexAtOrAfter(position: bigint): number {
    let low = 0;
    let high = this.all.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.all[mid].position < position) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}

function sameId(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
