import { createServer } from 'node:net';
import { ANY, NO_STREAM, START, STREAM_EXISTS, WrongExpectedVersionError, type AllStreamResolvedEvent } from '@eventstore/db-client';
import { newEvent, systemActor } from '../event-envelope';
import { describeEventStoreContract } from '../event-store.contract';
import { EventStoreUnavailableError, WrongExpectedRevisionError } from '../event-store.port';
import { EsdbEventStore } from './esdb-event-store';
import {
  fromEsdbPosition,
  isEsdbUrl,
  isSystemEvent,
  mapEsdbError,
  normalizeEsdbUrl,
  toEsdbExpectedRevision,
  toEsdbReadPosition,
  toRecordedEvent,
  toSafeNumber,
} from './esdb-mapping';

/**
 * With EVENTSTORE_URL set (CI with a server, `docker compose up eventstore`), the full contract runs against it.
 * Without one (this machine has no server to be had), the parts that need none run: failing fast against a
 * closed port, and every translation between the port and the client.
 */
const serverUrl = process.env.EVENTSTORE_URL;
if (serverUrl) {
  describeEventStoreContract(
    `eventstoredb (${serverUrl.replace(/\/\/[^@]*@/, '//')})`,
    async () => {
      const store = await EsdbEventStore.connect({ url: serverUrl });
      return { store, dispose: () => store.close() };
    },
    { idInOtherStream: 'accepted' },
  );
}

async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('EsdbEventStore without a server', () => {
  it('given a closed local port, when connecting, then it fails within seconds with a clear, typed error', async () => {
    const url = `esdb://127.0.0.1:${await unusedPort()}?tls=false`;
    const started = Date.now();
    const error = await EsdbEventStore.connect({ url, deadlineMs: 3000 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(EventStoreUnavailableError);
    expect((error as Error).message).toMatch(/EventStoreDB at esdb:\/\/127\.0\.0\.1:\d+\?tls=false is unreachable/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('given a closed local port, when appending, then the append fails with the same error instead of hanging', async () => {
    const store = new EsdbEventStore({ url: `kurrentdb://127.0.0.1:${await unusedPort()}?tls=false`, deadlineMs: 3000 });
    const event = newEvent(
      'SampleRecorded',
      { index: 0 },
      {
        id: '0f8fad5b-d9cb-469f-a165-70867728950e',
        metadata: { correlationId: 'c', reasonCode: 'test', actor: systemActor() },
      },
    );
    try {
      await expect(store.appendToStream('account-1', [event])).rejects.toBeInstanceOf(EventStoreUnavailableError);
    } finally {
      await store.close();
    }
  });
});

describe('EventStoreDB mapping', () => {
  it('maps every expected revision kind to the client constant', () => {
    expect(toEsdbExpectedRevision('any')).toBe(ANY);
    expect(toEsdbExpectedRevision('no_stream')).toBe(NO_STREAM);
    expect(toEsdbExpectedRevision('stream_exists')).toBe(STREAM_EXISTS);
    expect(toEsdbExpectedRevision(0)).toBe(BigInt(0));
    expect(toEsdbExpectedRevision(41)).toBe(BigInt(41));
  });

  it('maps positions both ways: after 0 is the start, after p is (p, p), commit positions become numbers', () => {
    expect(toEsdbReadPosition(undefined)).toBe(START);
    expect(toEsdbReadPosition(0)).toBe(START);
    expect(toEsdbReadPosition(1234)).toEqual({ commit: BigInt(1234), prepare: BigInt(1234) });
    expect(fromEsdbPosition({ commit: BigInt(987654321), prepare: BigInt(987654321) })).toBe(987654321);
  });

  it('refuses positions that a JavaScript number cannot hold exactly', () => {
    expect(() => toSafeNumber(BigInt(Number.MAX_SAFE_INTEGER) + BigInt(1), 'commit position')).toThrow(RangeError);
    expect(toSafeNumber(BigInt(Number.MAX_SAFE_INTEGER), 'commit position')).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('maps WrongExpectedVersion to WrongExpectedRevisionError with the actual revision', () => {
    const existing = new WrongExpectedVersionError(undefined, { streamName: 'account-7', expected: BigInt(3), current: BigInt(5) });
    const mapped = mapEsdbError(existing, { streamId: 'account-7', expected: 3, url: 'esdb://x' });
    expect(mapped).toBeInstanceOf(WrongExpectedRevisionError);
    expect(mapped).toMatchObject({ streamId: 'account-7', expected: 3, actual: 5 });

    const missing = new WrongExpectedVersionError(undefined, { streamName: 'account-8', expected: STREAM_EXISTS, current: NO_STREAM });
    expect(mapEsdbError(missing, { url: 'esdb://x' })).toMatchObject({
      streamId: 'account-8',
      expected: 'stream_exists',
      actual: 'no_stream',
    });
  });

  it('maps the raw gRPC UNAVAILABLE error of the batch-append path to EventStoreUnavailableError', () => {
    const raw = Object.assign(new Error('14 UNAVAILABLE: No connection established'), { code: 14 });
    const mapped = mapEsdbError(raw, { url: 'esdb://admin:changeit@db:2113' });
    expect(mapped).toBeInstanceOf(EventStoreUnavailableError);
    expect((mapped as Error).message).toBe(
      'EventStoreDB at esdb://admin:***@db:2113 is unreachable (14 UNAVAILABLE: No connection established); check EVENTSTORE_URL and that the server is up',
    );
  });

  it('passes errors it does not know through unchanged', () => {
    const error = new Error('boom');
    expect(mapEsdbError(error, { url: 'esdb://x' })).toBe(error);
  });

  it('accepts the EventStoreDB and KurrentDB URL schemes and rejects others', () => {
    expect(normalizeEsdbUrl('kurrentdb://admin:changeit@db:2113?tls=false')).toBe('esdb://admin:changeit@db:2113?tls=false');
    expect(normalizeEsdbUrl('kurrentdb+discover://cluster.local:2113')).toBe('esdb+discover://cluster.local:2113');
    expect(normalizeEsdbUrl('esdb://localhost:2113')).toBe('esdb://localhost:2113');
    expect(isEsdbUrl('esdb://localhost:2113')).toBe(true);
    expect(isEsdbUrl('kurrentdb://localhost:2113')).toBe(true);
    expect(isEsdbUrl('postgres://localhost/db')).toBe(false);
    expect(isEsdbUrl(undefined)).toBe(false);
    expect(() => normalizeEsdbUrl('http://user:secret@localhost:2113')).toThrow(/esdb:\/\/ or kurrentdb:\/\/.*user:\*\*\*@/);
  });

  it('treats $-prefixed streams and types as system events', () => {
    expect(isSystemEvent('$stats-127.0.0.1:2113', 'StatsCollected')).toBe(true);
    expect(isSystemEvent('account-1', '$>')).toBe(true);
    expect(isSystemEvent('account-1', 'QuotaConsumed')).toBe(false);
  });

  it('turns a resolved event into a RecordedEvent and drops system and binary ones', () => {
    const created = new Date('2026-11-23T10:00:00Z');
    const metadata = {
      correlationId: 'req-1',
      causationId: null,
      actor: { type: 'system' },
      clientIp: null,
      reasonCode: 'relay_consume',
      schemaVersion: 1,
    };
    const base = {
      streamId: 'account-1',
      id: '0f8fad5b-d9cb-469f-a165-70867728950e',
      isJson: true,
      revision: BigInt(4),
      type: 'QuotaConsumed',
      created,
      data: { quota: 10 },
      metadata,
      position: { commit: BigInt(5000), prepare: BigInt(5000) },
    };
    const resolved = { event: base, commitPosition: BigInt(5000) } as unknown as AllStreamResolvedEvent;
    expect(toRecordedEvent(resolved)).toEqual({
      id: base.id,
      streamId: 'account-1',
      revision: 4,
      position: 5000,
      type: 'QuotaConsumed',
      data: { quota: 10 },
      metadata,
      createdAt: created,
    });
    expect(toRecordedEvent({ event: { ...base, streamId: '$settings' } } as unknown as AllStreamResolvedEvent)).toBeNull();
    expect(toRecordedEvent({ event: { ...base, isJson: false } } as unknown as AllStreamResolvedEvent)).toBeNull();
    expect(toRecordedEvent({} as AllStreamResolvedEvent)).toBeNull();
  });
});
